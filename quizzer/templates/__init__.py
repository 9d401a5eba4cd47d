"""Question templates: YAML files validated at load, and the instances they generate.

Owns: ``schema`` (the pydantic model of a template file), ``loader`` (safe YAML, bounded),
``validate``/``verify`` (checks over seeds; against torch for ``quizzer verify``), ``instance``
(a seeded draw: prompt, answer, misconceptions, solution, figure), ``functions`` and ``figure``
(what a template may call and draw), ``catalog`` (topics, routed exam records, misconceptions
from ``data/``), ``render`` (an instance as terminal text, Markdown or JSON).
May import: ``engine``, ``quizzer.grading``, ``text``, ``common``. Never the bank or a face.
"""
