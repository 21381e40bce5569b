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

# The other reading (seed 001 §3.4.4.1: "list of functions words available within NLTK library"): NLTK's
# English stopword list as it stood in 2013 (nltk_data corpora/stopwords/english, 127 words, before the
# contractions were added), in its file order. Kept as data so FWPF and FNRF can be counted under it.
NLTK_STOPWORDS_2013 = frozenset(
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers "
    "herself it its itself they them their theirs themselves what which who whom this that these those am is "
    "are was were be been being have has had having do does did doing a an the and but if or because as until "
    "while of at by for with about against between into through during before after above below to from up "
    "down in out on off over under again further then once here there when where why how all any both each "
    "few more most other some such no nor not only own same so than too very s t can will just don should "
    "now".split())

# FWPF's and FNRF's list, by the name an approach's ``function_words`` parameter gives.
FUNCTION_WORD_LISTS = {"closed-classes": FUNCTION_WORDS, "nltk-2013": NLTK_STOPWORDS_2013}


def is_function_word(word: str) -> bool:
    return word.lower() in FUNCTION_WORDS


def content_words(words, vocabulary: frozenset[str] = FUNCTION_WORDS) -> tuple[str, ...]:
    """``words`` without function words of ``vocabulary`` (and without punctuation: tokens with no letter or
    digit)."""
    return tuple(w for w in words if any(c.isalnum() for c in w) and w.lower() not in vocabulary)
