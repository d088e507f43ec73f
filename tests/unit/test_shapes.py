"""Texts that differ only in their names' letters are formatted once, and each comes back as
black formats it alone."""

from __future__ import annotations

import black
import pytest

from generator.output import formatting
from generator.output.formatting import black_mode
from generator.output.shapes import restored, shape
from support.pycode import recorded_texts


def black_alone(text: str) -> str:
    return black.format_str(text, mode=black_mode())


# Texts whose lines are too long, so that black changes them, each with its names ``{0}``,
# ``{1}``... filled twice, by names of the same lengths: two texts of one shape (the same
# keywords, strings, comments and numbers).
TEMPLATES = {
    "a call": "put(_, strict_enum({0}))\n",
    "an f-string's names are its own": (
        'request = self.{0}(method, f"/repos/{{owner}}/{{repo}}/keys/{{key_id}}", {1}, params)\n'
    ),
    "keywords and soft keywords kept": (
        "def {0}(self, match: str, type: int = 1, *, case: bool = False) -> Awaitable[{1}]:"
        " return await self.{2}(match, type, case, lambda x: x if x else None)\n"
    ),
    "strings, prefixes, comments and numbers kept": (
        "{0} = compute({1}, rb'bytes', u'text', 0x1F, 1e5, 1_000, 0o17)  # a comment, kept\n"
        "{2} = compute({1}, 'single', {1}, {0})\n"
    ),
    "a docstring": (
        'class {0}:\n    """A model of one thing.   """\n\n'
        '    {1}: Annotated[{2}, Field(alias="field-name", description="what it holds")]\n'
    ),
    "a future import": (
        "from __future__ import annotations\nfrom {0} import ({1}, {2}, {1}_again, {2}_again)\n"
    ),
}
NAMES = (
    (
        "WebhookIssuesOpenedIssuePerformedViaGithubAppPermissionsVulnerabilityAlertsAndMore",
        "some_long_argument_name_here",
        "some_longer_method_name",
    ),
    (
        "RepositoryRulesetsConditionsRefNameIncludePatternsAndExcludePatternsOfTheBranchess",
        "other_long_argument_word_too",
        "other_longer_method_wor",
    ),
)
TWINS = {kind: tuple(text.format(*names) for names in NAMES) for kind, text in TEMPLATES.items()}


def test_the_twins_names_have_the_same_lengths():
    assert [len(name) for name in NAMES[0]] == [len(name) for name in NAMES[1]]


@pytest.mark.parametrize("twins", TWINS)
def test_texts_of_one_shape_are_formatted_once_and_each_as_black_formats_it(twins, monkeypatch):
    texts = TWINS[twins]
    assert shape(texts[0])[0] == shape(texts[1])[0]
    given = recorded_texts(monkeypatch, "_format_all")
    results = formatting.format_sources(list(texts))
    assert results == [(True, black_alone(text)) for text in texts]
    assert len(given) == 1 and black_alone(texts[0]) != texts[0]


def test_what_black_reads_as_a_keyword_is_kept():
    text = "match = type(case) + __name__ + print_me(_, lazy)\n"
    kept, names = shape(text)
    assert kept == "match = type(case) + __name__ + xxxxxxxx(_, lazy)\n"
    assert names == ("print_me",)
    assert restored(kept, names) == text


def test_texts_it_cannot_read_are_their_own_shape():
    for text in ("name = 'é' + other_name\n", "name = 'not closed\n", 'x = """open\n'):
        assert shape(text) == (text, ())


def test_names_put_back_only_where_black_kept_them_in_order():
    kept, names = shape("first(second, third)\n")
    assert kept == "xxxxx(xxxxxx, xxxxx)\n" and names == ("first", "second", "third")
    assert restored("xxxxx(\n    xxxxxx,\n    xxxxx,\n)\n", names) == (
        "first(\n    second,\n    third,\n)\n"
    )
    assert restored("xxxxx(xxxxx, xxxxxx)\n", names) is None  # a name moved
    assert restored("xxxxx(xxxxxx)\n", names) is None  # a name dropped
    assert restored("xxxxx(xxxxxx, xxxxx, xxxxx)\n", names) is None  # a name added


def test_a_shape_black_refuses_is_refused_in_the_text_s_own_words():
    results = formatting.format_sources(["first_name(:\n", "other_name(:\n"])
    assert [ok for ok, _ in results] == [False, False]
    assert "first_name(:" in results[0][1] and "other_name(:" in results[1][1]
