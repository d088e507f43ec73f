"""What the tests share that is not a fixture: the project's paths, the generated packages imported
side by side, what a revision's document says (:mod:`support.facts`), servers on loopback, copies
of the project with a revision appended, and the API's next revisions made up.

``pytest`` finds this package on the path that ``[tool.pytest.ini_options] pythonpath`` names
(``tests``), in every test process; the tests import it as ``support``. Fixtures stay in the
``conftest.py`` files.
"""
