"""Reading a document: the walk that bounds the expansion of YAML aliases runs only where the
text can hold aliases."""

import json

import pytest

from generator.errors import SpecError
from generator.reading import loader


def _walks(monkeypatch):
    walked = []
    real = loader._check_expansion

    def counting(root, source):
        walked.append(source)
        return real(root, source)

    monkeypatch.setattr(loader, "_check_expansion", counting)
    return walked


def test_a_json_document_is_read_without_walking_for_aliases(monkeypatch):
    # '&' and '*' inside JSON strings look like an anchor and an alias to the quick test
    document = {"info": {"description": "a & b, see *note*", "x": "&anchor *alias"}, "n": [1, 2]}
    walked = _walks(monkeypatch)
    assert loader.parse_yaml(json.dumps(document, indent=2), "doc.json") == document
    assert walked == []


def test_a_yaml_document_with_aliases_is_still_walked(monkeypatch):
    walked = _walks(monkeypatch)
    text = "a: &x [1, 2]\nb: *x\n"
    assert loader.parse_yaml(text, "doc.yaml") == {"a": [1, 2], "b": [1, 2]}
    assert walked == ["doc.yaml"]


def test_flow_yaml_that_is_not_json_is_walked_and_refused_when_it_expands_too_far():
    layers = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    layers += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 7)]
    text = "{" + ", ".join(layers) + "}"
    with pytest.raises(SpecError, match="expands the anchor"):
        loader.parse_yaml(text, "doc.yaml")
