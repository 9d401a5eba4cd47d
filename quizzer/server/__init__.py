"""The server behind ``quizzer serve``: the practice app in a web browser, for a course.

A face, beside the Textual app and the exports: it runs the very app a terminal opens, one process
per browser session (through textual-serve), as the learner who signed in.

Owns: ``app`` (the aiohttp server: routes, one app process per websocket, capacity, clean stop),
``gate`` (who a request is: the three ways a server is opened, the session cookie, signing in and
out), ``passwords`` (scrypt records, made and checked), ``throttle`` (failed sign-ins), ``pages``
(the HTML around the app: sign-in, "the server is full", the teacher's report), and the browser's
files in ``templates/`` and ``static/`` (the page, its script, the bundled font and its licence).
May import: ``quizzer.reporting`` (the teacher's report), ``learning``, ``bank``, ``common``;
aiohttp and textual-serve.  Imported only by ``quizzer serve`` and ``quizzer accounts``.
"""
