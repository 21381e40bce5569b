"""The one reading layer: every defect of a text input becomes ``file:line: expected ...``, never a traceback."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parastudio.core.errors import InputFormatError
from parastudio.core.textio import CheckedText, open_text_maybe_gzip, read_lines


def write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_bom_and_crlf_are_read_as_plain_text(tmp_path):
    path = write(tmp_path, "a.txt", b"\xef\xbb\xbfone\r\ntwo\r\nthree")
    assert list(read_lines(path)) == [(1, "one"), (2, "two"), (3, "three")]


def test_gzip_and_plain_read_the_same(tmp_path):
    text = "a ||| b ||| 0.5\nc ||| d ||| 0.25\n".encode()
    plain = write(tmp_path, "t.txt", text)
    zipped = write(tmp_path, "t.txt.gz", gzip.compress(text))
    assert list(read_lines(plain)) == list(read_lines(zipped))


@pytest.mark.parametrize("data, line, expected", [
    (b"good\nbad \xff\xfe here\n", 2, "UTF-8 text"),
    (b"one\ntw\x00o\n", 2, "text without NUL bytes"),
    (b"x" * 5000, 1, "a line of at most 4,096 bytes"),
    (b"short\n" + b"y" * 5000 + b"\n", 2, "a line of at most 4,096 bytes"),
])
def test_defects_name_the_file_and_line(tmp_path, data, line, expected):
    path = write(tmp_path, "bad.txt", data)
    with pytest.raises(InputFormatError) as raised:
        with open_text_maybe_gzip(path, max_line_bytes=4096) as handle:
            list(handle)
    assert f"{path}:{line}: expected {expected}" in str(raised.value)


def test_a_truncated_gzip_stops_at_the_line_it_reached(tmp_path):
    data = gzip.compress(("".join(f"line {i}\n" for i in range(20000))).encode())
    path = write(tmp_path, "cut.gz", data[: len(data) // 2])
    with pytest.raises(InputFormatError) as raised:
        list(read_lines(path))
    assert "expected a complete gzip file" in str(raised.value) and f"{path}:" in str(raised.value)


def test_random_bytes_named_gz_are_called_neither_gzip_nor_text(tmp_path):
    path = write(tmp_path, "noise.gz", bytes(range(128, 256)) * 4)
    with pytest.raises(InputFormatError) as raised:
        list(read_lines(path))
    assert str(raised.value).startswith(f"{path}:1: expected a gzip file, as its name ends in .gz")
    assert "does not begin with gzip's bytes 1f 8b, and byte 1 of line 1 is not UTF-8" in str(raised.value)
    nul = write(tmp_path, "nul.gz", b"one\ntw\x00o\n")
    with pytest.raises(InputFormatError, match=r":2: expected a gzip file.*line 2 holds a NUL byte"):
        list(read_lines(nul))
    plain = write(tmp_path, "plain.gz", b"plain text under a .gz name\n")  # text is text, whatever its name
    assert list(read_lines(plain)) == [(1, "plain text under a .gz name")]
    with pytest.raises(InputFormatError, match=r"bad\.txt:1: expected UTF-8 text"):  # no .gz name: just not UTF-8
        list(read_lines(write(tmp_path, "bad.txt", bytes(range(128, 256)))))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400), st.booleans())
def test_any_bytes_give_lines_or_one_clear_error(tmp_path, data, compress):
    path = write(tmp_path, "fuzz.gz" if compress else "fuzz.txt", gzip.compress(data) if compress else data)
    try:
        lines = list(read_lines(path, max_line_bytes=64))
    except InputFormatError as error:
        lines = None
        assert str(error).startswith(f"{path}:") and ": expected " in str(error)
    if lines is not None:
        # Accepted: what was read is exactly the input's text, line by line.
        text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8").replace("\r\n", "\n")
        assert [line for _, line in lines] == (text.removesuffix("\n").split("\n") if text else [])


def test_the_reader_is_a_context_manager_and_iterable(tmp_path):
    path = write(tmp_path, "x.txt", b"a\nb\n")
    with CheckedText(path) as handle:
        assert handle.readline() == "a\n" and handle.line_number == 1
        assert handle.read() == "b\n" and handle.line_number == 2
