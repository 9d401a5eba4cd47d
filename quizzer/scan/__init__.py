"""``quizzer scan``: paper answer sheets back into the bank.  A face, beside ``tui`` and ``export``.

The sheets are ``quizzer export --answer-sheets``'s; all the scanner knows of them is their manifest
(``exam-sheets.json``: page geometry, every box, and each version's questions and seeds).

* ``manifest`` reads and checks the manifest (bounded: it is a file a user hands in).
* ``page`` turns a scanned page (PDF or image, from a scanner or a phone) into box darknesses: it
  finds the four ArUco corner markers, undoes rotation, skew and perspective, reads the QR code and
  measures each box.  OpenCV (``opencv-python-headless``: the library made for this, its ArUco
  detector tolerant of blur and perspective), zxing-cpp for the QR code (it reads blurred, tilted and
  JPEG-damaged codes that OpenCV's own detector misses), pypdfium2 to rasterise PDFs (a wheel: no
  poppler needed).  All imported only by the ``scan`` command.
* ``readings`` is pure: darkness → *empty*, *marked*, *cancelled* (filled in completely: the sheet's
  way of taking a mark back) or *uncertain*, and a field's boxes → the answer as ``quizzer grade``
  reads it, or why it needs the teacher.
* ``run`` groups pages into sheets (exam, version, student ID), keeps the teacher's queue (a CSV with
  the box's image beside each reading) and records complete sheets through ``grade --batch``'s path
  (:class:`quizzer.learning.batch.BatchGrader`), at the exam's date, once.  The teacher answers the
  queue in the file or on the TUI's screen (``quizzer scan --confirm``): the command hands that screen
  the rows, so the faces stay apart.

May import: ``quizzer.learning``, ``bank``, ``templates``, ``grading``, ``common``.  Never another face.
"""
