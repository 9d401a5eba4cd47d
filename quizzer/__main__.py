"""``python -m quizzer``: the same as the installed ``quizzer`` command."""

from quizzer.cli import main

if __name__ == "__main__":
    main()
