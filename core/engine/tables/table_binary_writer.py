"""A paraphrase table written in its binary form (the layout: :mod:`core.engine.tables.table_binary`, which reads
it): every array built from the loaded table, laid out 64-byte aligned behind the JSON header, checksummed and
written atomically."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

from parastudio.core.engine.tables.rules import Phrase
from parastudio.core.engine.tables.table_binary import ALIGN, MAGIC, PREFIX, VERSION, key_hash


def write_binary(table, destination: str | os.PathLike, *, text: dict, load: dict, report: dict,
                 inputs=()) -> Path:
    """Write ``table`` (a loaded :class:`ParaphraseTable`) to ``destination`` atomically.

    ``text``: the text table's :func:`~core.engine.tables.table_binary.text_stamp` taken *before* it was read;
    ``load``: the canonical loading options; ``report``: ``{"skipped", "first_errors"}``.
    """
    import numpy as np

    from parastudio.core.textio import atomic_output

    sources = list(table.sources())
    source_keys = [" ".join(s).encode("utf-8") for s in sources]
    targets: dict[Phrase, int] = {}
    schemas: dict[tuple, int] = {}
    strings: dict[str, int] = {}
    rule_offsets = [0]
    rule_target: list[int] = []
    rule_prob: list[float] = []
    rule_schema: list[int] = []
    feature_offsets = [0]
    feature_values: list[float] = []
    textual: dict[int, list[int]] = {}  # schema -> positions of its string values
    for source in sources:
        for rule in table.rules_for(source):
            rule_target.append(targets.setdefault(rule.target, len(targets)))
            rule_prob.append(rule.prob)
            features = rule.features
            values = list(features.values())
            schema = (tuple(features), tuple(map(type, values)))
            number = schemas.setdefault(schema, len(schemas))
            rule_schema.append(number)
            strings_at = textual.get(number)
            if strings_at is None:
                strings_at = textual[number] = [i for i, kind in enumerate(schema[1]) if kind is str]
            for i in strings_at:
                values[i] = strings.setdefault(values[i], len(strings))
            feature_values.extend(values)
            feature_offsets.append(len(feature_values))
        rule_offsets.append(len(rule_prob))
    hashes = [key_hash(key) for key in source_keys]
    capacity = 1 << max(4, (2 * len(sources)).bit_length())
    mask = capacity - 1
    slot_list = [0] * capacity
    for index, value in enumerate(hashes):  # linear probing, at most half full
        slot = value & mask
        while slot_list[slot]:
            slot = (slot + 1) & mask
        slot_list[slot] = index + 1
    slots = np.array(slot_list, dtype="<u4")

    def blob(items: list[bytes]) -> tuple[bytes, np.ndarray]:
        offsets = np.zeros(len(items) + 1, dtype="<u8")
        np.cumsum([len(i) for i in items], out=offsets[1:])
        return b"".join(items), offsets

    source_text, source_offsets = blob(source_keys)
    target_text, target_offsets = blob([" ".join(t).encode("utf-8") for t in targets])
    string_text, string_offsets = blob([s.encode("utf-8") for s in strings])
    arrays = {
        "source_text": source_text, "source_offsets": source_offsets,
        "source_hash": np.array(hashes, dtype="<u8"), "slots": slots,
        "rule_offsets": np.array(rule_offsets, dtype="<u8"), "rule_target": np.array(rule_target, dtype="<u4"),
        "rule_prob": np.array(rule_prob, dtype="<f8"), "target_text": target_text, "target_offsets": target_offsets,
        "rule_schema": np.array(rule_schema, dtype="<u4"), "feature_offsets": np.array(feature_offsets, dtype="<u8"),
        "feature_values": np.array(feature_values, dtype="<f8"), "string_text": string_text,
        "string_offsets": string_offsets,
    }
    directory, chunks, position = {}, [], 0
    for name, array in arrays.items():
        data = array if isinstance(array, bytes) else array.tobytes()
        padding = -position % ALIGN
        chunks.append(b"\x00" * padding)
        position += padding
        directory[name] = [position, len(data)]
        chunks.append(data)
        position += len(data)
    header = json.dumps({
        "name": table.name, "rules": len(rule_prob), "sources": len(sources), "targets": len(targets),
        "max_source_length": table.max_source_length, "longest_phrase": table.longest_phrase,
        "capacity": capacity,
        "schemas": [[[key, kind is str] for key, kind in zip(*schema)] for schema in schemas],
        "text": text, "load": load, "skipped": report["skipped"], "first_errors": report["first_errors"],
        "arrays": directory, "data_size": position,
    }, ensure_ascii=False).encode("utf-8")
    header += b" " * (-(PREFIX.size + len(header)) % ALIGN)  # data starts aligned
    data_crc = 0
    for chunk in chunks:
        data_crc = zlib.crc32(chunk, data_crc)
    with atomic_output(destination, "wb", inputs=inputs) as out:
        out.write(PREFIX.pack(MAGIC, VERSION, len(header), zlib.crc32(header), data_crc))
        out.write(header)
        for chunk in chunks:
            out.write(chunk)
    return Path(destination)
