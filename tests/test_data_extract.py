"""OSIS markup -> verse text: no glued words, poetry joined, notes and titles gone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.evaldata.sword_extract import glued_words, module_info, osis_to_text

# Real entries from the Debian SWORD modules (engWEB2015eb 426.0, engKJV2006eb 14.3, spaRV1909eb 2.60).
WEB_GEN_1_1 = ('<w lemma="strong:H0430">In</w> <w lemma="strong:H0853">the</w> <w lemma="strong:H7225">beginning</w>, '
               '<w lemma="strong:H0430">God</w><note placement="foot"><reference type="annotateRef">1:1 </reference>'
               'The Hebrew word rendered “God” is “אֱלֹהִ֑ים” (Elohim).</note><w lemma="strong:H1254">created</w> '
               '<w lemma="strong:H0853">the</w> <w lemma="strong:H8064">heavens</w>.')
WEB_JOHN_3_16 = ('<q marker="" who="Jesus"><w lemma="strong:G3439">only</w> born</q><note placement="foot">'
                 '<reference type="annotateRef">3:16 </reference>The phrase “only born” is from the Greek.</note>'
                 '<q marker="" who="Jesus"><w lemma="strong:G5207">Son</w>, that</q>')
WEB_PS_23_1 = ('<div type="x-milestone" subType="x-preverse" sID="pv5154"/><title canonical="true" type="psalm">'
               'A Psalm by David.</title> <lg sID="gen8524"/> <l level="1" sID="gen8525"/><div type="x-milestone" '
               'subType="x-preverse" eID="pv5154"/><w lemma="strong:H3068">Yahweh</w> <w>is</w> <w>my</w> '
               '<w lemma="strong:H7462">shepherd</w>;<l eID="gen8525" level="1"/> <l level="2" sID="gen8526"/>'
               '<w>I</w> <w>shall</w> <w>lack</w> <w>nothing</w>. <l eID="gen8526" level="2"/>')
KJV_MARK_4_24 = '<w lemma="strong:G4369">shall more be give</w>n.</q>'
KJV_PS_23_1 = ('<title canonical="true" type="psalm">A <w lemma="strong:H4210">Psalm</w> of David.</title> '
               '<l level="1" sID="gen2898"/> The <divineName><w lemma="strong:H3068">LORD</w></divineName> '
               '<transChange type="added">is</transChange> my <w>shepherd</w>; I shall not <w>want</w>. '
               '<l eID="gen2898" level="1"/>')
RV_GEN_2_12 = ('<w lemma="strong:H8033">hay allí</w><transChange type="added">también</transChange>'
               '<w lemma="strong:H0916">bdelio</w>')
RV_1CHR_10_13 = '<w lemma="strong:H0178">al pythón</w>, preguntándo<transChange type="added">le</transChange>,'
WEB_REV_22_21 = ('The grace of the Lord Jesus Christ be with all the saints. Amen. <chapter eID="Rev.22"/>'
                 '<div eID="gen35836" type="x-p"/> <div canonical="true" eID="gen35575" osisID="Rev" type="book"/> '
                 '<div sID="gen35837" type="glossary"/> <title level="1" type="main">World English Bible Glossary'
                 '</title> Abaddon is Hebrew for destruction.')


@pytest.mark.parametrize("osis, expected", [
    (WEB_GEN_1_1, "In the beginning, God created the heavens."),
    (WEB_JOHN_3_16, "only born Son, that"),
    (WEB_PS_23_1, "Yahweh is my shepherd; I shall lack nothing."),
    (KJV_MARK_4_24, "shall more be given."),
    (KJV_PS_23_1, "The LORD is my shepherd; I shall not want."),
    (RV_GEN_2_12, "hay allí también bdelio"),
    (RV_1CHR_10_13, "al pythón, preguntándole,"),
    (WEB_REV_22_21, "The grace of the Lord Jesus Christ be with all the saints. Amen."),
    ("<lb/>Cain &amp; Abel<lb/>went", "Cain & Abel went"),
    ("\u00b6 <w>For</w> God", "For God"),
])
def test_markup_policy_on_real_entries(osis, expected):
    assert osis_to_text(osis) == expected


def test_glued_word_detector():
    assert glued_words("only bornSon, that") == ["bornSon"]
    assert glued_words("The LORD is my shepherd; McDonald") == ["McDonald"]
    assert glued_words("In the beginning, God created") == []


WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC", min_size=1, max_size=6)


@st.composite
def marked_up_verse(draw):
    """Random words, each wrapped in word-level markup or bare, separated by spaces or structural tags.

    Nothing at all between two words is drawn only when both are elements (``</w><w>``): two bare
    words with nothing between them are one word in the source too.
    """
    words = draw(st.lists(WORD, min_size=1, max_size=12))
    wrappers = [draw(st.sampled_from(["", "w", "transChange", "divineName", "q"])) for _ in words]
    pieces = []
    for index, (word, wrapper) in enumerate(zip(words, wrappers)):
        if index:
            separators = [" ", '<l sID="1"/>', "<lb/>", '<note n="1">note text</note>', "<title>Heading</title>", "\n"]
            if wrapper and wrappers[index - 1]:
                separators.append("")
            pieces.append(draw(st.sampled_from(separators)))
        pieces.append(f'<{wrapper} a="x">{word}</{wrapper}>' if wrapper else word)
    return words, "".join(pieces)


@settings(max_examples=300, deadline=None)
@given(marked_up_verse())
def test_words_never_glued_and_notes_never_kept(case):
    words, osis = case
    assert osis_to_text(osis).split() == words


def test_module_info_reads_version(tmp_path):
    (tmp_path / "engTEST.conf").write_text("[engTEST]\nDescription=Test Bible\n# Version=9\nVersion=1.2\n"
                                           "SwordVersionDate=2022-12-28\nVersification=KJV\n", encoding="utf-8")
    info = module_info("engTEST", tmp_path)
    assert (info.version, info.date, info.versification, info.description) == ("1.2", "2022-12-28", "KJV", "Test Bible")
