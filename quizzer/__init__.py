"""quizzer: exam revision for a university course on Transformers."""

__version__ = "0.1.0"
