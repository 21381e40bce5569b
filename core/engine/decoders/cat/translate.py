"""Translating with the beam decoder for seed 001: 1-best with its segmentation, and the search graph.

Seed 001 reads a translation's phrase coverage from Moses' ``-report-segmentation``
output and the alternatives from ``-output-search-graph``; :func:`translate_all`
gives both for our decoder (the graph in Moses' traditional format,
:mod:`core.engine.decoders.search_graph`).
"""

from __future__ import annotations

from typing import IO, Iterable, Sequence

from parastudio.core.engine.decoders.beam_decoder import BeamDecoder
from parastudio.core.engine.decoders.cat.graph_store import best_path_from, nodes_of_lines
from parastudio.core.engine.decoders.cat.segmentation import Translation
from parastudio.core.engine.decoders.decoder_types import NBestEntry
from parastudio.core.engine.decoders.search_graph import search_graph_lines
from parastudio.core.progress import Progress, no_progress


def translation_of(entry: NBestEntry) -> Translation:
    """An n-best entry as a segmented translation."""
    return Translation.from_phrases((entry.tokens[s.tgt_start:s.tgt_end], s.src_start, s.src_end)
                                    for s in entry.segments)


def translation_from_segments(tokens: Sequence[str], segments: Iterable) -> Translation:
    """The same from any derivation (segments with ``src_start/src_end/tgt_start/tgt_end``)."""
    return Translation.from_phrases((tuple(tokens[s.tgt_start:s.tgt_end]), s.src_start, s.src_end)
                                    for s in segments)


def translation_of_graph(lines: Sequence[str]) -> Translation:
    """The best path of one sentence's graph lines, exactly as :class:`~core.engine.decoders.cat.graph_store.SentenceGraph`
    reads it from a store: where two paths tie up to rounding, the graph's forward links and the decoder's
    back pointers may choose differently, and the paraphraser must see the translation the graph has."""
    nodes = nodes_of_lines(lines)
    by_id = {n.hyp: n for n in nodes}
    root = next(n for n in nodes if n.back is None)
    starts = sorted((n for n in nodes if n.back is not None and n.start == 0), key=lambda n: (-n.score, n.hyp))
    path = best_path_from(root, starts, lambda hyp: by_id.get(hyp) if hyp is not None and hyp >= 0 else None)
    return Translation.from_phrases((n.out, n.start, n.end) for n in path)


def translate_all(decoder: BeamDecoder, sentences: Sequence[Sequence[str]], *, graph: IO[str] | None = None,
                  first_id: int = 0, progress: Progress = no_progress) -> list[Translation]:
    """The 1-best of each sentence (an empty translation where nothing was found); with ``graph``, its lines are
    written there and the 1-best is the graph's best path (:func:`translation_of_graph`)."""
    translations = []
    for index, sentence in enumerate(sentences):
        result = decoder.decode(tuple(sentence))
        if graph is not None:
            lines = list(search_graph_lines(first_id + index, result))
            graph.writelines(line + "\n" for line in lines)
            translations.append(translation_of_graph(lines) if result.final_stack else Translation((), ()))
        else:
            best = result.nbest(1)
            translations.append(translation_of(best[0]) if best else Translation((), ()))
        progress(index + 1, len(sentences), "sentences")
    return translations
