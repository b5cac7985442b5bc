"""Drives AgentExec through the official Python MCP client (PyPI `mcp`, 1.x or 2.x line).

Run by test/interop/python-client.test.ts, or alone:

    python exec_client.py --workspace DIR --stdio -- node bin/run.js exec serve --workspace DIR --level terminal
    AGENTEXEC_TOKEN=... python exec_client.py --workspace DIR --http http://127.0.0.1:PORT/mcp

The workspace DIR must exist and be empty; this program writes its fixture files there, then
exercises every tool the server lists. It prints one JSON object per check on stdout
(`{"check", "ok", "detail"}`), then one summary object (`{"summary": {...}}`), and exits 1 when
a check failed. The server's stderr passes through to this program's stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
import sys
import struct
import traceback
import zlib
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable

MCP_VERSION = package_version("mcp")
MCP_LINE = "v" + MCP_VERSION.split(".", 1)[0]

# The four fields of an exec_command / write_stdin answer, in order (DESIGN §4.4).
EXEC_FIELDS = ["exit_code", "seconds", "session_id", "text"]
EXEC_TEXT_SHAPE = re.compile(r"\Aexit_code: (-?\d+|running)\nseconds: \d+\.\d{3}\nsession_id: (\S+)\ntext:\n", re.S)
# A command killed by SIGINT reports 128 + 2 (DESIGN §4.4).
SIGINT_EXIT_CODE = 130
# Bounds the polling loops: a command that never ends fails the check instead of hanging the run.
MAX_POLLS = 12


@dataclass
class Answer:
    """A tool call's answer, the same for both client lines (wire field names)."""

    text: str
    is_error: bool
    structured: dict[str, Any] | None
    raw: dict[str, Any]


@dataclass
class Session:
    """A connected client, whichever line: the negotiated revision and two calls."""

    protocol_version: str
    list_tools: Callable[[], Awaitable[list[dict[str, Any]]]]
    call_tool: Callable[[str, dict[str, Any]], Awaitable[Any]]
    # Each listed tool's outputSchema: every successful answer must carry structuredContent that it accepts.
    output_schemas: dict[str, dict[str, Any]] = field(default_factory=dict)

    async def call(self, name: str, arguments: dict[str, Any]) -> Answer:
        result = await self.call_tool(name, arguments)
        raw = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        text = "".join(block.get("text", "") for block in raw.get("content", []) if block.get("type") == "text")
        answer = Answer(text=text, is_error=raw.get("isError") is True, structured=raw.get("structuredContent"), raw=raw)
        schema = self.output_schemas.get(name)
        if answer.is_error:
            expect(answer.structured is None, f"{name}: a tool error carries structuredContent", answer)
        elif schema is not None:
            import jsonschema

            expect(answer.structured is not None, f"{name}: a successful answer has no structuredContent", answer)
            errors = [error.message for error in jsonschema.Draft202012Validator(schema).iter_errors(answer.structured)]
            expect(not errors, f"{name}: structuredContent does not match the outputSchema: {errors}", answer)
        return answer


def dump_tools(result: Any) -> list[dict[str, Any]]:
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in result.tools]


@asynccontextmanager
async def connect_v1(args: argparse.Namespace) -> AsyncIterator[Session]:
    """mcp 1.x: `ClientSession` over `stdio_client` or `streamable_http_client` (2025 revisions)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    if args.url:
        import httpx
        from mcp.client.streamable_http import streamable_http_client

        http = httpx.AsyncClient(headers=auth_headers(), timeout=httpx.Timeout(30.0, read=120.0))
        transport = streamable_http_client(args.url, http_client=http)
    else:
        command, *rest = args.server
        transport = stdio_client(StdioServerParameters(command=command, args=rest, env=dict(os.environ)), errlog=sys.stderr)
    async with transport as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            init = await session.initialize()

            async def list_tools() -> list[dict[str, Any]]:
                return dump_tools(await session.list_tools())

            yield Session(str(init.protocolVersion), list_tools, session.call_tool)


@asynccontextmanager
async def connect_v2(args: argparse.Namespace) -> AsyncIterator[Session]:
    """mcp 2.x: the high-level `Client`, which negotiates 2026-07-28 with a server that offers it."""
    from mcp import Client, StdioServerParameters

    if args.url:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        http = httpx2.AsyncClient(headers=auth_headers(), timeout=httpx2.Timeout(30.0, read=120.0))
        target: Any = streamable_http_client(args.url, http_client=http)
    else:
        command, *rest = args.server
        target = StdioServerParameters(command=command, args=rest, env=dict(os.environ))
    async with Client(target) as client:

        async def list_tools() -> list[dict[str, Any]]:
            return dump_tools(await client.list_tools())

        yield Session(str(client.protocol_version), list_tools, client.call_tool)


def auth_headers() -> dict[str, str]:
    """The bearer token from AGENTEXEC_TOKEN, or no header when it is empty."""
    token = os.environ.get("AGENTEXEC_TOKEN", "")
    return {"Authorization": f"Bearer {token}"} if token else {}


@dataclass
class Checks:
    """Collects check results and prints each as one JSON line."""

    failed: int = 0
    names: list[str] = field(default_factory=list)

    def record(self, name: str, ok: bool, detail: str = "") -> None:
        self.names.append(name)
        if not ok:
            self.failed += 1
        print(json.dumps({"check": name, "ok": ok, "detail": detail}), flush=True)

    async def run(self, name: str, body: Callable[[], Awaitable[None]]) -> None:
        try:
            await body()
        except AssertionError as error:
            self.record(name, False, str(error) or traceback.format_exc(limit=2))
        except Exception:  # noqa: BLE001 - any failure of one check is reported, the others still run
            self.record(name, False, traceback.format_exc(limit=4))
        else:
            self.record(name, True)


def expect(condition: bool, message: str, answer: Answer | None = None) -> None:
    if not condition:
        raise AssertionError(message + (f"\nanswer: {json.dumps(answer.raw)[:1500]}" if answer else ""))


def png(width: int, height: int, padding: int = 0) -> bytes:
    """A width x height RGB PNG; `padding` adds a tEXt chunk of that many bytes."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"".join(bytes([x * 8 % 256, y * 8 % 256, 128]) for x in range(width)) for y in range(height))
    text = [chunk(b"tEXt", b"Comment\x00" + b"a" * padding)] if padding else []
    return b"".join(
        [b"\x89PNG\r\n\x1a\n", chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)), *text, chunk(b"IDAT", zlib.compress(rows)), chunk(b"IEND", b"")]
    )


def gif(width: int, height: int) -> bytes:
    return (
        b"GIF89a" + struct.pack("<HH", width, height) + b"\x80\x00\x00" + b"\x20\x60\xa0\xff\xff\xff"
        + b"\x2c" + struct.pack("<HHHH", 0, 0, width, height) + b"\x00" + b"\x02\x02\x44\x01\x00" + b"\x3b"
    )


def jpeg(width: int, height: int) -> bytes:
    """A JPEG header (JFIF APP0, SOF0 giving the size, SOS) around placeholder data: all read looks at."""

    def segment(marker: int, data: bytes) -> bytes:
        return bytes([0xFF, marker]) + struct.pack(">H", len(data) + 2) + data

    frame = struct.pack(">BHHB", 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00") + segment(0xC0, frame) + segment(0xDA, b"\x01\x01\x00\x00\x3f\x00") + b"\x12\x34\xff\xd9"


def webp(width: int, height: int) -> bytes:
    """A lossless (VP8L) WebP header around placeholder data."""
    data = b"\x2f" + struct.pack("<I", (width - 1) | ((height - 1) << 14)) + b"\x00\x88\x88\x08"
    body = b"WEBP" + b"VP8L" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


# The images the fixture holds: file name, bytes, MIME type, width, height.
IMAGES = [
    ("pictures/shot.png", png(12, 7), "image/png", 12, 7),
    ("pictures/photo.jpg", jpeg(640, 480), "image/jpeg", 640, 480),
    ("pictures/anim.gif", gif(9, 4), "image/gif", 9, 4),
    ("pictures/diagram", webp(300, 200), "image/webp", 300, 200),
]


def write_fixture(root: Path) -> None:
    (root / "src").mkdir()
    (root / "notes").mkdir()
    (root / "README.md").write_text("hello\n")
    (root / "poem.txt").write_text("alpha\nbeta\ngamma\n")
    (root / "notes" / "todo.txt").write_text("first item\nfind the needle here\n")
    (root / "src" / "app.py").write_text('GREETING = "hi"\nprint(GREETING)\n')
    (root / "twice.txt").write_text("same\nsame\n")
    (root / ".gitignore").write_text("ignored/\n")
    (root / "ignored").mkdir()
    (root / "ignored" / "hidden.txt").write_text("needle in an ignored file\n")
    (root / "pictures").mkdir()
    for name, data, *_ in IMAGES:
        (root / name).write_bytes(data)
    # Larger than any host takes for one image (Claude's API: 5 MiB of base64).
    (root / "pictures" / "huge.png").write_bytes(png(4, 4, 6 * 1024 * 1024))
    (root / "pictures" / "cut.png").write_bytes(png(4, 4)[:20])


async def check_list(s: Session, checks: Checks, root: Path) -> None:
    async def root_listing() -> None:
        answer = await s.call("list", {})
        expect(not answer.is_error, "list of the root failed", answer)
        lines = answer.text.split("\n")[1:]
        expect("README.md  6 bytes" in lines, "README.md with its size in bytes is missing", answer)
        expect("src/" in lines and "notes/" in lines, "folders are not marked with /", answer)

    async def outside() -> None:
        answer = await s.call("list", {"path": ".."})
        expect(answer.is_error, "listing .. was not refused", answer)
        expect("outside the workspace" in answer.text, "the refusal does not say the path is outside", answer)

    await checks.run("list: the root, with sizes and folders marked", root_listing)
    await checks.run("list: a path outside the workspace is a tool error", outside)


async def check_read(s: Session, checks: Checks, root: Path) -> None:
    async def numbered() -> None:
        answer = await s.call("read", {"path": "poem.txt"})
        expect(not answer.is_error, "read failed", answer)
        for number, word in [(1, "alpha"), (2, "beta"), (3, "gamma")]:
            expect(re.search(rf"^\s*{number}\D.*{word}$", answer.text, re.M) is not None, f"line {number} ({word}) is not numbered", answer)

    async def window() -> None:
        answer = await s.call("read", {"path": "poem.txt", "offset": 2, "limit": 1})
        expect(not answer.is_error, "read with offset/limit failed", answer)
        expect("beta" in answer.text and "alpha" not in answer.text and "gamma" not in answer.text.split("beta", 1)[0], "offset 2, limit 1 did not give line 2 alone", answer)
        expect(re.search(r"\b3\b", answer.text.split("beta", 1)[1]) is not None, "the answer does not say which offset continues", answer)

    async def missing() -> None:
        answer = await s.call("read", {"path": "no-such-file.txt"})
        expect(answer.is_error, "reading a missing file was not a tool error", answer)
        expect("no-such-file.txt" in answer.text, "the error does not name the path", answer)

    async def outside() -> None:
        answer = await s.call("read", {"path": "/etc/passwd"})
        expect(answer.is_error and "outside the workspace" in answer.text, "/etc/passwd was not refused as outside", answer)
        expect("root:" not in answer.text, "the refusal reveals the outside file", answer)

    async def images() -> None:
        for name, data, mime_type, width, height in IMAGES:
            answer = await s.call("read", {"path": name})
            expect(not answer.is_error, f"read of {name} failed", answer)
            blocks = [block for block in answer.raw.get("content", []) if block.get("type") == "image"]
            expect(len(blocks) == 1 and blocks[0].get("mimeType") == mime_type, f"{name} is not one {mime_type} image block", answer)
            expect(base64.b64decode(blocks[0]["data"]) == data, f"{name} did not come back byte for byte")
            expect(f"{width}×{height} pixels" in answer.text, f"the text line of {name} does not give its size", answer)
            expect((answer.structured or {}).get("kind") == "image" and answer.structured.get("width") == width, f"{name}: structuredContent", answer)

    async def image_errors() -> None:
        huge = await s.call("read", {"path": "pictures/huge.png"})
        expect(huge.is_error and re.search(r"at most \d+ bytes", huge.text) is not None and "terminal level" in huge.text, "an image over the limit is not refused with the limit and a way out", huge)
        expect(len(huge.text) < 1000, "the refusal of a huge image is huge", huge)
        cut = await s.call("read", {"path": "pictures/cut.png"})
        expect(cut.is_error and "header is cut short" in cut.text, "a PNG with a cut header is not refused as such", cut)
        window = await s.call("read", {"path": "pictures/shot.png", "offset": 2})
        expect(window.is_error and "offset and limit" in window.text, "offset with an image is not refused with why", window)

    async def structured() -> None:
        answer = await s.call("read", {"path": "poem.txt", "offset": 2, "limit": 1})
        expect(
            answer.structured is not None
            and answer.structured.get("lines") == ["beta"]
            and answer.structured.get("first_line") == 2
            and answer.structured.get("clipped_lines") == []
            and answer.structured.get("next_offset") == 3,
            "read's structuredContent does not give the window",
            answer,
        )

    await checks.run("read: numbered lines", numbered)
    await checks.run("read: PNG, JPEG, GIF and WebP come back as image content, byte for byte", images)
    await checks.run("read: an image too large, a cut PNG header, offset with an image are clear errors", image_errors)
    await checks.run("read: the window as structuredContent", structured)
    await checks.run("read: offset and limit, and where to continue", window)
    await checks.run("read: a missing file is a tool error naming it", missing)
    await checks.run("read: a path outside the workspace is refused", outside)


async def check_search(s: Session, checks: Checks, root: Path) -> None:
    async def literal() -> None:
        answer = await s.call("search", {"query": "needle"})
        expect(not answer.is_error, "search failed", answer)
        expect(re.search(r"^notes/todo\.txt:2:.*find the needle here", answer.text, re.M) is not None, "the match is not given as path:line:text", answer)
        expect("ignored/hidden.txt" not in answer.text, "a file that .gitignore ignores was searched", answer)

    async def not_regex() -> None:
        answer = await s.call("search", {"query": "GREETING = \"h.\""})
        expect(not answer.is_error, "search failed", answer)
        expect("src/app.py" not in answer.text, "an exact-text search treated . as a pattern", answer)
        regex = await s.call("search", {"query": "GREETING = \"h.\"", "regex": True})
        expect(not regex.is_error and "src/app.py:1:" in regex.text, "a regex search did not match", regex)

    await checks.run("search: literal match as path:line:text, ignored files skipped", literal)
    await checks.run("search: exact text unless regex", not_regex)


async def check_edit(s: Session, checks: Checks, root: Path) -> None:
    async def replace() -> None:
        answer = await s.call("edit", {"path": "src/app.py", "old_text": '"hi"', "new_text": '"hello from python"'})
        expect(not answer.is_error, "edit failed", answer)
        expect((root / "src" / "app.py").read_text() == 'GREETING = "hello from python"\nprint(GREETING)\n', "the file on disk did not change as asked")
        expect(re.search(r'^-GREETING = "hi"$', answer.text, re.M) is not None, "the diff lacks the removed line", answer)
        expect(re.search(r'^\+GREETING = "hello from python"$', answer.text, re.M) is not None, "the diff lacks the added line", answer)

    async def ambiguous() -> None:
        answer = await s.call("edit", {"path": "twice.txt", "old_text": "same", "new_text": "other"})
        expect(answer.is_error, "an ambiguous edit was not refused", answer)
        expect("2" in answer.text, "the refusal does not say how many occurrences", answer)
        expect((root / "twice.txt").read_text() == "same\nsame\n", "the refused edit changed the file")

    async def create() -> None:
        answer = await s.call("edit", {"path": "src/new.txt", "old_text": "", "new_text": "created\n"})
        expect(not answer.is_error, "creating a file failed", answer)
        expect((root / "src" / "new.txt").read_text() == "created\n", "the new file is not on disk")
        again = await s.call("edit", {"path": "src/new.txt", "old_text": "", "new_text": "again\n"})
        expect(again.is_error, "creating an existing file was not refused", again)

    await checks.run("edit: replaces text on disk and answers with a diff", replace)
    await checks.run("edit: an ambiguous old_text is a tool error", ambiguous)
    await checks.run("edit: empty old_text creates a file, once", create)


def exec_answer(answer: Answer) -> dict[str, Any]:
    """Checks the four-field shape of an exec_command / write_stdin answer; returns the fields."""
    expect(not answer.is_error, "the call failed", answer)
    structured = answer.structured
    expect(isinstance(structured, dict), "no structuredContent", answer)
    assert structured is not None
    expect(list(structured.keys()) == EXEC_FIELDS, f"structuredContent fields are {list(structured.keys())}", answer)
    code = structured["exit_code"]
    expect(code == "running" or (isinstance(code, int) and not isinstance(code, bool)), "exit_code is neither an integer nor running", answer)
    expect(isinstance(structured["seconds"], (int, float)), "seconds is not a number", answer)
    expect(isinstance(structured["session_id"], str) and isinstance(structured["text"], str), "session_id or text is not a string", answer)
    expect((code == "running") == (structured["session_id"] != "none"), "session_id and exit_code disagree", answer)
    match = EXEC_TEXT_SHAPE.match(answer.text)
    expect(match is not None, "the text content is not the four fields in order", answer)
    assert match is not None
    expect(match.group(1) == str(code) and match.group(2) == structured["session_id"], "text and structuredContent disagree", answer)
    expect(answer.text[match.end():] == structured["text"], "the text field differs between text and structuredContent", answer)
    return structured


async def poll_until_end(s: Session, session_id: str, seen: list[str]) -> dict[str, Any]:
    """Polls with write_stdin (no chars) until the command ends; collects its output in `seen`."""
    for _ in range(MAX_POLLS):
        fields = exec_answer(await s.call("write_stdin", {"session_id": session_id}))
        seen.append(fields["text"])
        if fields["exit_code"] != "running":
            return fields
    raise AssertionError(f"the command of session {session_id} did not end after {MAX_POLLS} polls")


async def check_terminal(s: Session, checks: Checks, root: Path) -> None:
    async def quick() -> None:
        fields = exec_answer(await s.call("exec_command", {"cmd": "echo out; echo err >&2; echo \"$NO_COLOR $TERM\""}))
        expect(fields["exit_code"] == 0 and fields["session_id"] == "none", f"a quick command did not end with 0: {fields}")
        expect(fields["text"] == "out\nerr\n1 dumb\n", f"output not merged in order or environment not plain: {fields['text']!r}")

    async def failing() -> None:
        fields = exec_answer(await s.call("exec_command", {"cmd": "exit 3"}))
        expect(fields["exit_code"] == 3, f"exit 3 reported {fields['exit_code']}")

    async def workdir() -> None:
        fields = exec_answer(await s.call("exec_command", {"cmd": "pwd", "workdir": "src"}))
        expect(os.path.realpath(fields["text"].strip()) == os.path.realpath(root / "src"), f"pwd printed {fields['text']!r}")
        outside = await s.call("exec_command", {"cmd": "pwd", "workdir": "/"})
        expect(outside.is_error and "outside the workspace" in outside.text, "a workdir outside the workspace was not refused", outside)

    async def long_running() -> None:
        started = exec_answer(await s.call("exec_command", {"cmd": "read line; echo \"got:$line\"", "yield_time_ms": 250}))
        expect(started["exit_code"] == "running", f"a command waiting for input was not reported running: {started}")
        session_id = started["session_id"]
        seen: list[str] = []
        fields = exec_answer(await s.call("write_stdin", {"session_id": session_id, "chars": "hello\n", "yield_time_ms": 2000}))
        seen.append(fields["text"])
        if fields["exit_code"] == "running":
            fields = await poll_until_end(s, session_id, seen)
        expect(fields["exit_code"] == 0 and fields["session_id"] == "none", f"the command did not end with 0: {fields}")
        expect("".join(seen) == "got:hello\n", f"output was {''.join(seen)!r}")
        retired = await s.call("write_stdin", {"session_id": session_id, "chars": "x"})
        expect(retired.is_error, "the retired session id still answered", retired)

    async def interrupt() -> None:
        # Interrupt only once the command runs: a \u0003 that arrives while the login shell is
        # still reading its profile stops whatever the profile runs, not the command.
        started = exec_answer(await s.call("exec_command", {"cmd": "echo ready; sleep 30", "yield_time_ms": 1000}))
        expect(started["exit_code"] == "running", f"sleep 30 was not reported running: {started}")
        seen = [started["text"]]
        for _ in range(MAX_POLLS):
            if "ready" in "".join(seen):
                break
            polled = exec_answer(await s.call("write_stdin", {"session_id": started["session_id"]}))
            seen.append(polled["text"])
        expect("".join(seen) == "ready\n", f"the command printed {''.join(seen)!r}")
        fields = exec_answer(await s.call("write_stdin", {"session_id": started["session_id"], "chars": "\u0003", "yield_time_ms": 2000}))
        if fields["exit_code"] == "running":
            fields = await poll_until_end(s, started["session_id"], seen)
        expect(fields["exit_code"] == SIGINT_EXIT_CODE, f"an interrupted sleep reported {fields['exit_code']}, not {SIGINT_EXIT_CODE}")

    async def end_of_input() -> None:
        started = exec_answer(await s.call("exec_command", {"cmd": "cat", "yield_time_ms": 250}))
        expect(started["exit_code"] == "running", f"cat was not reported running: {started}")
        echoed = exec_answer(await s.call("write_stdin", {"session_id": started["session_id"], "chars": "abc\n", "yield_time_ms": 1000}))
        seen = [echoed["text"]]
        fields = exec_answer(await s.call("write_stdin", {"session_id": started["session_id"], "chars": "\u0004", "yield_time_ms": 2000}))
        seen.append(fields["text"])
        if fields["exit_code"] == "running":
            fields = await poll_until_end(s, started["session_id"], seen)
        expect(fields["exit_code"] == 0, f"cat did not end with 0 after end of input: {fields}")
        expect("".join(seen) == "abc\n", f"cat echoed {''.join(seen)!r}")

    async def bounded() -> None:
        fields = exec_answer(await s.call("exec_command", {"cmd": "seq 1 20000", "max_output_tokens": 50}))
        text = fields["text"]
        expect(fields["exit_code"] == 0, f"seq reported {fields['exit_code']}")
        expect(len(text) < 2000, f"the output was not cut: {len(text)} characters")
        expect(text.startswith("1\n2\n") and text.rstrip().endswith("19999\n20000"), f"head or tail missing: {text!r}")

    async def unknown_session() -> None:
        answer = await s.call("write_stdin", {"session_id": "no-such-session", "chars": "x"})
        expect(answer.is_error, "an unknown session id was not a tool error", answer)

    await checks.run("exec_command: a quick command, merged output, plain environment", quick)
    await checks.run("exec_command: a non-zero exit is a normal answer", failing)
    await checks.run("exec_command: workdir inside the workspace only", workdir)
    await checks.run("write_stdin: a long-running command reads input and ends", long_running)
    await checks.run("write_stdin: \\u0003 interrupts the command", interrupt)
    await checks.run("write_stdin: \\u0004 ends the command's input", end_of_input)
    await checks.run("exec_command: output cut to max_output_tokens, head and tail kept", bounded)
    await checks.run("write_stdin: an unknown session id is a tool error", unknown_session)


# Which checks exercise which tool; the test that runs this program requires one group per tool.
GROUPS: dict[str, Callable[[Session, Checks, Path], Awaitable[None]]] = {
    "list": check_list,
    "read": check_read,
    "search": check_search,
    "edit": check_edit,
    "exec_command": check_terminal,
    "write_stdin": check_terminal,
}


async def check_refused_without_token(args: argparse.Namespace, checks: Checks) -> None:
    """Over HTTP, a client with no token (401) or a wrong one (403) must not get through."""

    for label, token, status in [("no token", "", "401"), ("a wrong token", "wrong-" + os.environ.get("AGENTEXEC_TOKEN", ""), "403")]:

        async def attempt(token: str = token, status: str = status) -> None:
            saved = os.environ.get("AGENTEXEC_TOKEN", "")
            os.environ["AGENTEXEC_TOKEN"] = token
            try:
                async with (connect_v1 if MCP_LINE == "v1" else connect_v2)(args) as session:
                    await session.list_tools()
            except BaseException as error:  # noqa: BLE001 - the refusal surfaces as whatever the client raises
                # 1.x raises the HTTP status; 2.x the JSON-RPC error the response carries.
                word = "Unauthorized" if status == "401" else "Forbidden"
                expect(re.search(f"{status}|{word}", describe(error)) is not None, f"the refusal was not a {status}: {describe(error)[:800]}")
            else:
                raise AssertionError(f"a client with {label} was served")
            finally:
                os.environ["AGENTEXEC_TOKEN"] = saved

        await checks.run(f"http: a client with {label} is refused with {status}", attempt)


def describe(error: BaseException) -> str:
    """An error and, for exception groups, everything inside them, as one string."""
    parts = [f"{type(error).__name__}: {error}"]
    for inner in getattr(error, "exceptions", ()):
        parts.append(describe(inner))
    if error.__cause__ is not None:
        parts.append(describe(error.__cause__))
    return "\n".join(parts)


async def main(args: argparse.Namespace) -> int:
    root = Path(args.workspace)
    write_fixture(root)
    checks = Checks()
    exercised: list[str] = []
    if args.url:
        await check_refused_without_token(args, checks)
    async with (connect_v1 if MCP_LINE == "v1" else connect_v2)(args) as session:
        tools = await session.list_tools()
        names = [tool["name"] for tool in tools]
        session.output_schemas = {tool["name"]: tool["outputSchema"] for tool in tools if "outputSchema" in tool}

        async def listing() -> None:
            for tool in tools:
                expect(re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", tool["name"]) is not None, f"bad tool name {tool['name']!r}")
                expect(bool(tool.get("description")), f"{tool['name']} has no description")
                expect(tool.get("inputSchema", {}).get("type") == "object", f"{tool['name']} has no object inputSchema")
                expect(isinstance(tool.get("annotations"), dict), f"{tool['name']} has no annotations")
                expect(tool.get("outputSchema", {}).get("type") == "object", f"{tool['name']} has no object outputSchema")
                if tool["name"] in ("exec_command", "write_stdin"):
                    schema = tool.get("outputSchema", {})
                    expect(list(schema.get("properties", {}).keys()) == EXEC_FIELDS, f"{tool['name']} outputSchema properties: {schema}")

        await checks.run("tools/list: names, descriptions, schemas and annotations", listing)
        done: set[Any] = set()
        for name in names:
            group = GROUPS.get(name)
            if group is None or group in done:
                if group is not None:
                    exercised.append(name)
                continue
            done.add(group)
            await group(session, checks, root)
            exercised.append(name)
        protocol_version = session.protocol_version
    print(
        json.dumps(
            {
                "summary": {
                    "mcp": MCP_VERSION,
                    "line": MCP_LINE,
                    "python": sys.version.split()[0],
                    "protocolVersion": protocol_version,
                    "tools": names,
                    "exercised": exercised,
                    "checks": len(checks.names),
                    "failed": checks.failed,
                }
            }
        ),
        flush=True,
    )
    return 1 if checks.failed else 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Exercise AgentExec through the official Python MCP client.")
    parser.add_argument("--workspace", required=True, help="the server's workspace folder (empty; the fixture is written there)")
    parser.add_argument("--http", dest="url", help="Streamable HTTP URL; the bearer token comes from AGENTEXEC_TOKEN")
    parser.add_argument("--stdio", action="store_true", help="spawn the server given after -- and talk over its stdio")
    parser.add_argument("server", nargs="*", help="the server command line (with --stdio)")
    args = parser.parse_args(argv)
    if bool(args.url) == bool(args.stdio) or (args.stdio and not args.server):
        parser.error("give either --http URL or --stdio -- COMMAND ...")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args(sys.argv[1:]))))
