"""Read a multipart/form-data body as a server does: with python-multipart, the parser Starlette
(so FastAPI) reads uploads with, never with the runtime's own encoder."""

from __future__ import annotations

from dataclasses import dataclass, field
from email.message import Message

from python_multipart.multipart import MultipartParser, parse_options_header


@dataclass
class Part:
    headers: dict[str, str] = field(default_factory=dict)
    data: bytes = b""

    @property
    def disposition(self) -> dict[str, str]:
        """The ``Content-Disposition`` header's parameters (``name``, ``filename``)."""
        message = Message()
        message["content-disposition"] = self.headers["content-disposition"]
        return {k: v for k, v in message.get_params(header="content-disposition")[1:]}

    @property
    def name(self) -> str:
        return self.disposition["name"]

    @property
    def filename(self) -> str | None:
        return self.disposition.get("filename")

    @property
    def content_type(self) -> str | None:
        return self.headers.get("content-type")


def parts(content_type: str, body: bytes) -> list[Part]:
    """The parts of a multipart/form-data body, in order, with their headers (names in lower
    case) and content."""
    kind, options = parse_options_header(content_type)
    assert kind == b"multipart/form-data", kind
    found: list[Part] = []
    header = [b"", b""]

    def begin() -> None:
        found.append(Part())

    def data(chunk: bytes, start: int, end: int) -> None:
        found[-1].data += chunk[start:end]

    def header_field(chunk: bytes, start: int, end: int) -> None:
        header[0] += chunk[start:end]

    def header_value(chunk: bytes, start: int, end: int) -> None:
        header[1] += chunk[start:end]

    def header_end() -> None:
        found[-1].headers[header[0].decode().lower()] = header[1].decode()
        header[0], header[1] = b"", b""

    parser = MultipartParser(
        options[b"boundary"],
        {
            "on_part_begin": begin,
            "on_part_data": data,
            "on_header_field": header_field,
            "on_header_value": header_value,
            "on_header_end": header_end,
        },
    )
    parser.write(body)
    parser.finalize()
    return found
