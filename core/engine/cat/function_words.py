"""English function words: the closed word classes, for the aligner's reduction rule and FWPF/FNRF (seed 001).

Rustamli took NLTK's stopword list, which NLTK downloads at run time (we have
no network then). Stopword lists shipped in wheels (scikit-learn's, spaCy's)
are retrieval lists: they hold content words such as "first", "give", "found",
"system", and seed 001's own example needs "first" to be a content word ("the
first state" keeps "first"). So the closed classes are listed here, class by
class; lowercase, as the corpus is. Archaic pronouns and verb forms of the KJV
and RV1909 translations are included, since the English side may be either.
"""

from __future__ import annotations

DETERMINERS = frozenset(
    "a an the this that these those my your his her its our their thy thine some any no every each either "
    "neither all both several such what which whose".split())
PRONOUNS = frozenset(
    "i me myself we us ourselves you yourself yourselves he him himself she her herself it itself they them "
    "themselves thou thee ye mine yours hers ours theirs who whom whoever one oneself".split())
PREPOSITIONS = frozenset(
    "about above across after against along among amongst around as at before behind below beneath beside "
    "besides between beyond by down during except for from in inside into near of off on onto out outside "
    "over past since through throughout till to toward towards under underneath until unto up upon with "
    "within without".split())
CONJUNCTIONS = frozenset(
    "and but or nor so yet for if because although though unless whether while whereas lest than that "
    "when where whereby wherein whither whence how why then also".split())
AUXILIARIES = frozenset(
    "be am is are was were been being have has had having do does did done shall should will would may might "
    "can could must art wast hast hath doth didst shalt wilt".split())
PARTICLES = frozenset("not n't 's 'll 're 've 'd 'm there here".split())

FUNCTION_WORDS = DETERMINERS | PRONOUNS | PREPOSITIONS | CONJUNCTIONS | AUXILIARIES | PARTICLES


def is_function_word(word: str) -> bool:
    return word.lower() in FUNCTION_WORDS


def content_words(words) -> tuple[str, ...]:
    """``words`` without function words (and without punctuation: tokens with no letter or digit)."""
    return tuple(w for w in words if any(c.isalnum() for c in w) and not is_function_word(w))
