"""Question templates: YAML files validated at load, and the instances they generate.

Owns: ``schema`` (the msgspec structs of a template file), ``schema_errors`` (a refusal in one
line), ``loader`` (safe YAML, bounded), ``validate``/``verify`` (checks over seeds; against torch
for ``quizzer verify``), ``instance`` (a seeded draw: prompt, answer, misconceptions, solution,
figure; ``question`` computes one question on the values drawn, ``coercion`` checks an answer's
form), ``functions`` and ``figure`` (what a template may call and draw), ``catalog`` (topics,
routed exam records, misconceptions from ``data/``), ``render`` (an instance as terminal text,
Markdown or JSON), ``sources`` (template files on disk and their content hashes), ``parts`` (a
multi-part question's parts, and their answers recomputed from a learner's earlier values),
``discovery`` (slips found by rerunning the engine).
May import: ``engine``, ``quizzer.grading``, ``text``, ``common``. Never the bank or a face.
"""

# How many seeds `quizzer validate` and `quizzer add` test-render per template (a constant here, not in
# ``validate``, so the command line can show it as a default without importing the validator).
VALIDATION_SEEDS = 200
# The largest seed either database stores (a 64-bit signed integer).
MAX_SEED = 2**63 - 1
