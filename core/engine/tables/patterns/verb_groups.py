"""Verb groups headed by their first auxiliary, as the paper's parser heads them (seed 002 §3.1, Figure 2).

Seed 002 parses with MaltParser, whose English models were trained on the Penn
Treebank converted by Penn2Malt's head rules: in a verb group the modal or
auxiliary is the head and the main verb its dependent (VC), and the subject
and the modifiers before the verb hang from the auxiliary. Figure 2 shows
exactly that for "We should first take market demand into consideration":
"should" above "take", so ST(take) is "take market demand into consideration"
and Algorithm 1 gives "take NN into consideration". spaCy's English models use
the ClearNLP scheme, where the main verb heads its auxiliaries (``aux``,
``auxpass``); left as it is, ST(take) would be the whole sentence and every
pattern of "take" would carry "we should first".

:func:`auxiliary_headed` converts a ClearNLP verb group to the Penn2Malt shape:
the first auxiliary takes the verb's head and label, each later auxiliary
hangs from the one before it, the verb from the last (label ``vc``); the verb's
other dependents to its left move to the nearest auxiliary before them (the
first one if none is), and its punctuation to the first auxiliary (Penn2Malt
attaches a clause's punctuation to the clause's head). Dependents right of the
verb stay with it. A verb without auxiliaries before it is left as it is.
"""

from __future__ import annotations

from parastudio.core.engine.tables.patterns.dependency_parse import DependencyParse

AUXILIARY_LABELS = frozenset({"aux", "auxpass"})
PUNCTUATION_LABEL = "punct"
VERB_CHAIN_LABEL = "vc"


def auxiliary_headed(parse: DependencyParse) -> DependencyParse:
    """The same words and tags, with every verb group re-headed by its first auxiliary."""
    groups = {verb: [d for d in dependents if d < verb and parse.labels[d] in AUXILIARY_LABELS]
              for verb, dependents in enumerate(parse.children)}
    groups = {verb: auxiliaries for verb, auxiliaries in groups.items() if auxiliaries}
    if not groups:
        return parse
    heads, labels = list(parse.heads), list(parse.labels)
    # A dependent that is itself a re-headed verb group moves as a whole: its first auxiliary moves.
    top = {verb: auxiliaries[0] for verb, auxiliaries in groups.items()}
    for verb, auxiliaries in groups.items():
        first = auxiliaries[0]
        heads[first], labels[first] = parse.heads[verb], parse.labels[verb]
        for before, after in zip(auxiliaries, auxiliaries[1:]):
            heads[after] = before
        heads[verb], labels[verb] = auxiliaries[-1], VERB_CHAIN_LABEL
    for verb, auxiliaries in groups.items():
        first = auxiliaries[0]
        for dependent in parse.children[verb]:
            if dependent in auxiliaries:
                continue
            if parse.labels[dependent] == PUNCTUATION_LABEL:
                heads[top.get(dependent, dependent)] = first
            elif dependent < verb:
                heads[top.get(dependent, dependent)] = max((a for a in auxiliaries if a < dependent), default=first)
    return DependencyParse(parse.words, parse.tags, tuple(heads), tuple(labels))
