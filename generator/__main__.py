import gc
import sys

from .cli import main

# A run builds large structures and frees little of them until it ends (the parsed document, the
# intermediate representation, the rendered texts, the statements parsed for black): collecting
# cycles after every 700 new objects, Python's default, walks them again and again, a fifth of a
# large document's CPU (GitHub's). The command line collects after 100,000; the processes it
# forks (the validator, black's workers, the smoke import) inherit it; a program that imports
# the generator keeps its own setting.
gc.set_threshold(100_000, 10, 10)
sys.exit(main())
