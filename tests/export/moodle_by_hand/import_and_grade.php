<?php
// By hand, against a real Moodle 4.5.6: import a Moodle XML file with the import form's defaults
// (match grades: error; categories and contexts from the file; stop on error) into a new course, count
// what was imported, then mark every case in CASES.json with Moodle's own question engine.
// Usage: php import_and_grade.php MOODLE_DIR FILE.xml CASES.json OUT.json
define('CLI_SCRIPT', true);
[$script, $moodle, $file, $casesfile, $outfile] = $argv;
require($moodle . '/config.php');
require_once($CFG->dirroot . '/course/lib.php');
require_once($CFG->dirroot . '/question/format.php');
require_once($CFG->dirroot . '/question/format/xml/format.php');
require_once($CFG->libdir . '/questionlib.php');
\core\session\manager::set_user(get_admin());

$course = create_course((object)['fullname' => basename($file), 'shortname' => basename($file) . '-' . time(),
    'category' => 1]);
$context = context_course::instance($course->id);
$category = question_make_default_categories([$context]);

$qformat = new qformat_xml();
$qformat->setCategory($category);
$qformat->setContexts([$context]);
$qformat->setCourse($course);
$qformat->setFilename($file);
$qformat->setRealfilename(basename($file));
$qformat->setMatchgrades('error');
$qformat->setCatfromfile(true);
$qformat->setContextfromfile(true);
$qformat->setStoponerror(true);
$ok = $qformat->importpreprocess() && $qformat->importprocess() && $qformat->importpostprocess();

$rows = $DB->get_records_sql("SELECT q.id, q.qtype, q.defaultmark, qbe.idnumber
    FROM {question} q JOIN {question_versions} qv ON qv.questionid = q.id
    JOIN {question_bank_entries} qbe ON qbe.id = qv.questionbankentryid
    JOIN {question_categories} qc ON qc.id = qbe.questioncategoryid
    WHERE qc.contextid = ? AND q.parent = 0 AND q.qtype <> 'random'", [$context->id]);
$byidnumber = [];
foreach ($rows as $row) {
    $byidnumber[$row->idnumber] = $row;
}
$cases = json_decode(file_get_contents($casesfile), true);
$results = [];
foreach ($cases as $case) {
    $row = $byidnumber[$case['idnumber']] ?? null;
    if (!$row) {
        $results[] = ['idnumber' => $case['idnumber'], 'missing' => true];
        continue;
    }
    $q = question_bank::load_question($row->id);
    $q->start_attempt(new question_attempt_step(), 1);
    $marks = [];
    foreach ($case['responses'] as $response) {
        [$fraction] = $q->grade_response(moodle_response($q, $response));
        $marks[] = $fraction;
    }
    $results[] = ['idnumber' => $case['idnumber'], 'qtype' => $row->qtype, 'defaultmark' => (float)$row->defaultmark,
        'fractions' => $marks];
}
file_put_contents($outfile, json_encode(['imported' => count($rows), 'ok' => (bool)$ok, 'results' => $results]));

function moodle_response($q, $response) {
    $type = $q->get_type_name();
    if ($type === 'numerical' || $type === 'shortanswer') {
        return ['answer' => (string)$response];
    }
    if ($type === 'truefalse') {
        return ['answer' => $response ? 1 : 0];
    }
    if ($type === 'multichoice') {
        $ids = array_keys($q->answers);
        $order = (fn() => $this->order)->call($q);  // set by start_attempt (shuffled or not)
        $positions = array_map(fn($i) => array_search($ids[$i], $order), $response);
        if ($q instanceof qtype_multichoice_single_question) {
            return ['answer' => $positions[0]];
        }
        $out = [];
        foreach ($positions as $p) {
            $out['choice' . $p] = 1;
        }
        return $out;
    }
    if ($type === 'multianswer') {
        $out = [];
        foreach (array_values($response) as $i => $value) {
            $out['sub' . ($i + 1) . '_answer'] = (string)$value;
        }
        return $out;
    }
    if ($type === 'ordering') {
        $keys = array_map(fn($place) => $q->answers[$q->correctresponse[$place]]->md5key, $response);
        return [$q->get_response_fieldname() => implode(',', $keys)];
    }
    throw new coding_exception("no response for $type");
}

