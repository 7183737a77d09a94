"""German: the words of everyday text (stop words, small talk, salience), how statements open, the words of time
(months, "jetzt", "wann"), and what full text leaves out of a query."""

from __future__ import annotations

import re

from kbsite.languages.dates import date_patterns, months
from kbsite.languages.en.words import PLACEHOLDER  # noqa: F401 - a model's placeholders are written in English
from kbsite.languages.snowball import stop_words

_CHAT = frozenset(
    "ja nein ok okay okey danke dank bitte hallo hi hey tschüss ciao cool super toll gut schön genau klar naja "
    "haha hehe lol echt mal halt eben doch schon heute".split()
)
# The forms of "machen" and "tun" (do, make): English's function words hold "do", Snowball's German ones not.
_DO = frozenset("mache machst macht machte machten gemacht tun tue tust tut tat".split())
STOPWORDS = stop_words("german") | _CHAT | _DO
TRIVIAL = frozenset(
    "hallo hi hey danke dankeschön bitte tschüss ciao ok okay ja nein cool super toll genau klar haha lol moin "
    "servus guten morgen abend tag".split()
)
DURABLE = re.compile(
    r"\b(?:ich bin|ich habe|ich hab|ich wohne|wir wohnen|ich arbeite|ich heiße|mein|meine|meinen|meinem|meiner|"
    r"unser|unsere|umgezogen|gezogen|geheiratet|verlobt|getrennt|gekündigt|angefangen|verkauft|nicht mehr|"
    r"kein \w+ mehr|keine \w+ mehr|ich mag|ich liebe|ich hasse|geboren|geburtstag)\b",
    re.I,
)
ANY_SENTENCE = re.compile(r"(?<=[.!?])(?<!\bz\.B\.)(?<!\bd\.h\.)(?<!\bDr\.)(?<!\bHr\.)(?<!\bFr\.)(?<!\busw\.)\s+(?=\S)")
OPENER = re.compile(
    r"^(?:(?:(?:gute |große )?neuigkeiten|übrigens|also|naja|ach|oh|hey|hallo|ok|okay|ja|nein|haha|lol)\s*"
    r"[:!,.\-–—]+|[A-Za-zÄÖÜäöüß][\w']*(?: [\w']+){0,2}:)\s+",
    re.I,
)
CLAUSE = re.compile(r";\s+|,?\s+(?:und|aber)\s+(?=(?:ich|wir)\b)", re.I)
COMPANION = re.compile(r"(?:^|\s)(?:[Mm]ein|[Mm]eine|[Uu]nser|[Uu]nsere) (?:[\w'-]+ ){0,2}?[A-ZÄÖÜ][\w'-]+$")
BACK_REFERENCE = re.compile(
    r"^(?:(?:er|sie|es) heißt|(?:sein|ihr) name ist|(?:er|sie|es) ist (?:mein|meine|unser))", re.I
)
FAVOURITE_ALONE = re.compile(r"^(?:mein|meine|unser|unsere) (?:neue |aktuelle )?lieblings\w+", re.I)
VERB_OF_FAVOURITE = re.compile(r"\b(?:ist|sind|war|bleibt)\b", re.I)
QUERY_STOPWORDS = stop_words("german") | frozenset("jetzt wo wann wer wie was welche welcher nutzer nutzerin".split())

MONTHS = months(
    [("januar", "jan", "jänner"), ("februar", "feb"), ("märz", "mär", "maerz"), ("april", "apr"), ("mai",),
     ("juni", "jun"), ("juli", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("oktober", "okt"),
     ("november", "nov"), ("dezember", "dez")]
)  # fmt: skip
DATE_PATTERNS = date_patterns(MONTHS, of="", in_year="im jahr|in|seit|bis|von")
# Asked where: a question a statement naming a place answers (kbsite.languages.places).
WHERE = re.compile(r"\b(?:wo|wohin|woher)\b|\bwelche[rnms]? (?:stadt|ort|land|viertel|gegend|adresse)\b", re.I)
WHEN = re.compile(r"^\s*wann\b|\b(?:an welchem|welches|welcher) (?:tag|datum|monat|jahr)\b|\bum wie viel uhr\b", re.I)
RELATIVE_TIME = re.compile(
    r"\b(?:heute|heute abend|gestern|vorgestern|morgen|übermorgen|diese woche|dieses wochenende|letzte woche|"
    r"letzten monat|letztes jahr|nächste woche|nächsten monat|nächstes jahr|vor \w+ (?:tagen|wochen|monaten|jahren)|"
    r"am (?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag))\b",
    re.I,
)
NOW = re.compile(
    r"\b(?:jetzt|inzwischen|mittlerweile|derzeit|zurzeit|aktuell|momentan|im moment|gerade|heutzutage|in letzter zeit|"
    r"noch|nicht mehr|neuerdings)\b",
    re.I,
)
# A question asking about the one that holds now, by the adjective ("seine aktuelle Freundin", "ihr jetziger Job"):
# how things stand now, but not as "now" is, beside "former" ("sein früherer Chef, nicht der jetzige" asks about the
# former).
CURRENT = re.compile(r"\b(?:aktuell|derzeitig|jetzig)e[nmrs]?\b", re.I)
# Asked about how things were before a change ("Wo hat sie vorher gearbeitet?").
BEFORE = re.compile(r"\b(?:vorher|davor|zuvor|früher|bevor|ehemals|vormals|ursprünglich)\b", re.I)
# Der von vorher, von einer Person oder Sache gesagt ("sein früherer Chef"): fragt, wie es vorher war, wenn die Frage
# nicht nach jetzt fragt, und nicht nach dem Chat selbst ("meine vorherige Frage"): kein Wort neben einem aus
# CONVERSATION.
FORMER = re.compile(r"vorherige[nmrs]?|frühere[nmrs]?|ehemalige[nmrs]?")
CONVERSATION = frozenset("frage fragen nachricht nachrichten gespräch gespräche unterhaltung chat sitzung antwort "
                         "antworten".split())  # fmt: skip
# Woher jemand stammt ("Woher kommt sie ursprünglich?"): was heute gilt, nicht wie es vorher war.
ORIGIN = re.compile(
    r"\b(?:woher|kommt|kommen|stammt|stammen|stammte)\b[^.?!]*\bursprünglich\b"
    r"|\bursprünglich\b[^.?!]*\b(?:kommt|kommen|stammt|stammen|stammte)\b",
    re.I,
)
# "Bevor" die fragende Person etwas tut ("Was sollte ich wissen, bevor ich sie einlade?"): ein Rat.
AHEAD = re.compile(r"\b(?:sollte|sollten|soll|muss|müsste|beachten)\b[^.?!]*\b(?:bevor|vorher)\b", re.I)
# Eine Frage nach einer Person: jemand, den ein Pronomen nennt ("Was kann ich für sie kochen?"), oder "der Nutzer".
# Nicht "ich" oder "mein": so fragt auch, wer nach der Welt fragt ("Darf ich mein Kind ins Bad mitnehmen?").
PERSON = re.compile(
    r"\b(?:sie|er|ihr|ihm|ihn|ihre|ihren|ihrem|ihrer|sein|seine|seinen|seinem|seiner|der nutzer"
    r"|die nutzerin)\b",
    re.I,
)
# Wörter, die eine Frage rahmen und nichts von ihrer Antwort sagen ("Gibt es irgendwas, das ich wissen sollte?").
FRAMING = frozenset("irgendwas irgendetwas etwas gibt wissen weißt sollte sollten sache sachen".split())
# What offline ask answers when nothing in memory answers the question.
NOT_REMEMBERED = "Daran erinnere ich mich nicht."
# German writes a compound as one word, its head last ("Volksschullehrerin", "Erdnussallergie"): a question about
# teachers or allergies looks for the head inside it (kbsite.languages.text.compound_heads).
COMPOUNDS = True
# Every German noun is written with a capital: one inside a sentence does not tell a name.
NOUNS_CAPITALISED = True
# Words written with a capital inside a sentence that name no one: none (all its nouns have one, and count as named).
CAPITALISED = frozenset()
PREFERENCE = re.compile(r"\b(?:ich (?:mag|liebe|hasse|bevorzuge)|lieblings\w+|mag ich)\b", re.I)
# A clause that only likes what was just said ("Das mag ich.", "Ich liebe es!"): a reaction, not a preference.
REACTION = re.compile(r"(?:(?:das|es|sowas) mag ich|ich (?:mag|liebe|hasse) (?:das|es|sowas))(?: sehr| total)?", re.I)
PROFILE = re.compile(
    r"\b(?:ich bin (?:jetzt )?(?:ein|eine|aus|in Rente|verheiratet|schwanger|geschieden|verlobt|\d+|(?-i:[A-ZÄÖÜ])\w*)|"
    r"ich heiße|ich wohne|wir wohnen|ich arbeite|geboren|umgezogen|allergi\w*|unverträglich\w*|"
    r"vegetari\w*|vegan\w*|zöliakie|ich esse kein\w*)\b",
    re.I,
)
DECISION = re.compile(r"\b(?:beschlossen|entschieden|wir werden|ich werde|abgemacht|vereinbart|haben uns für)\b", re.I)
