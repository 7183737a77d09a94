"""French: the words of everyday text (stop words, small talk, salience), how statements open, the words of time
(months, "maintenant", "quand"), and what full text leaves out of a query."""

from __future__ import annotations

import re

from kbsite.languages.dates import date_patterns, months
from kbsite.languages.en.words import PLACEHOLDER  # noqa: F401 - a model's placeholders are written in English
from kbsite.languages.snowball import stop_words

_CHAT = frozenset(
    "oui non ok okay merci bonjour salut coucou ciao cool super génial top bien bon ouais mdr lol haha ah oh bah "
    "ben bref voilà quoi trop vraiment aujourd'hui".split()
)
# The forms of "faire" (do, make): English's function words hold "do", Snowball's French ones not.
_DO = frozenset("fais fait faisons faites font faire faisait fit".split())
STOPWORDS = stop_words("french") | _CHAT | _DO
# The elided article or pronoun a word is written with ("j'habite", "l'appart"): not part of the word.
ELIDED = re.compile(r"^(?:j|l|d|qu|n|m|t|s|c)['’]", re.I)
TRIVIAL = frozenset(
    "bonjour salut coucou merci oui non ok okay cool super génial top ouais mdr lol haha bonsoir bisous ciao "
    "d'accord parfait".split()
)
DURABLE = re.compile(
    r"\b(?:je suis|j'ai|j'habite|on habite|nous habitons|je travaille|je m'appelle|mon|ma|mes|notre|nos|"
    r"déménagé|emménagé|marié|mariée|fiancé|fiancée|séparé|séparée|démissionné|commencé|vendu|plus de|"
    r"ne \w+ plus|n'\w+ plus|j'aime|j'adore|je déteste|né|née|anniversaire)\b",
    re.I,
)
ANY_SENTENCE = re.compile(r"(?<=[.!?])(?<!\bM\.)(?<!\bMme\.)(?<!\bDr\.)(?<!\betc\.)(?<!\bp\.ex\.)\s+(?=\S)")
OPENER = re.compile(
    r"^(?:(?:(?:bonne |grande |grosse )?nouvelle|au fait|bref|bon|bah|ben|alors|oh|ah|salut|coucou|ok|oui|non|"
    r"mdr|haha)\s*[:!,.\-–—]+|[A-Za-zÀ-ÿ][\w']*(?: [\w']+){0,2}:)\s+",
    re.I,
)
CLAUSE = re.compile(r";\s+|,?\s+(?:et|mais)\s+(?=(?:je|j'|on|nous)\b)", re.I)
COMPANION = re.compile(r"(?:^|\s)(?:[Mm]on|[Mm]a|[Nn]otre) (?:[\w'-]+ ){0,2}?[A-ZÀ-Ý][\w'-]+$")
BACK_REFERENCE = re.compile(r"^(?:(?:il|elle) s'appelle|son nom est|c'est (?:mon|ma|notre))", re.I)
FAVOURITE_ALONE = re.compile(r"^(?:mon|ma|mes|notre) (?:\w+ )?(?:préférée?s?|favorite?s?)\b", re.I)
VERB_OF_FAVOURITE = re.compile(r"\b(?:est|sont|était|reste)\b", re.I)
QUERY_STOPWORDS = stop_words("french") | frozenset(
    "maintenant où quand qui comment quoi quel quelle utilisateur".split()
)

MONTHS = months(
    [("janvier", "janv"), ("février", "fevrier", "févr"), ("mars",), ("avril", "avr"), ("mai",), ("juin",),
     ("juillet", "juil"), ("août", "aout"), ("septembre", "sept"), ("octobre", "oct"), ("novembre", "nov"),
     ("décembre", "decembre", "déc")]
)  # fmt: skip
DATE_PATTERNS = date_patterns(MONTHS, of="", in_year="en|depuis|jusqu'en|de")
# Asked where: a question a statement naming a place answers (kbsite.languages.places).
WHERE = re.compile(r"\boù\b|\b(?:quel|quelle) (?:ville|pays|quartier|endroit|adresse|région)\b", re.I)
WHEN = re.compile(r"^\s*quand\b|\b(?:quel|quelle) (?:jour|date|mois|année|heure)\b|\bà quelle (?:date|heure)\b", re.I)
RELATIVE_TIME = re.compile(
    r"\b(?:aujourd'hui|ce soir|hier|avant-hier|demain|après-demain|cette semaine|ce week-end|la semaine "
    r"(?:dernière|prochaine)|le mois (?:dernier|prochain)|l'an(?:née)? (?:dernier|dernière|prochain|prochaine)|"
    r"il y a \w+ (?:jours|semaines|mois|ans)|(?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) dernier)\b",
    re.I,
)
NOW = re.compile(
    r"\b(?:maintenant|désormais|actuellement|en ce moment|ces temps-ci|ces jours-ci|"
    r"toujours|encore|ne \w+ plus|dernièrement)\b",
    re.I,
)
# A question asking about the one that holds now, by the adjective ("son travail actuel"): how things stand now, but
# not as "now" is, beside "former" ("his former boss, not his current one" asks about the former).
CURRENT = re.compile(r"\bactuel(?:le)?s?\b", re.I)
# Asked about how things were before a change ("Où travaillait-elle avant ?").
BEFORE = re.compile(r"\b(?:avant|auparavant|précédemment|autrefois|jadis|à l[’']origine)\b", re.I)
# Celui d'avant, dit d'une personne ou d'une chose ("son propriétaire précédent") : demande comment c'était avant, si
# la question ne demande rien de maintenant, et pas de la discussion elle-même ("ma question précédente") : aucun mot
# à côté d'un mot de CONVERSATION.
FORMER = re.compile(r"précédente?s?")
CONVERSATION = frozenset("question questions message messages conversation conversations discussion échange session "
                         "réponse réponses".split())  # fmt: skip
# D'où vient quelqu'un ("D'où vient-elle à l'origine ?") : ce qui vaut aujourd'hui, pas comment c'était avant.
ORIGIN = re.compile(
    r"\b(?:d[’']où|vient|viennent|venait|originaire)\b[^.?!]*\bà l[’']origine\b"
    r"|\bde quel(?:le)?s? (?:ville|pays|région|coin)\b[^.?!]*\bà l[’']origine\b"
    r"|\bà l[’']origine\b[^.?!]*\b(?:vient|venait|originaire)\b",
    re.I,
)
# "Avant" ce que la personne qui demande va faire ("Que dois-je savoir avant de l'inviter ?") : un conseil.
AHEAD = re.compile(r"\b(?:dois|doit|devrais|devrait|faut|faudrait|besoin)\b[^.?!]*\bavant\b", re.I)
# Une question sur une personne : quelqu'un nommé par un pronom ("Que puis-je lui cuisiner ?") ou "l'utilisateur".
# Pas "je" ni "mon" : qui demande sur le monde parle ainsi aussi ("Puis-je amener mon fils à la piscine ?").
PERSON = re.compile(r"\b(?:elle|il|lui|eux|elles|sa|son|ses|leur|leurs|l'utilisateur|l'utilisatrice)\b", re.I)
# Des mots qui posent une question sans rien dire de sa réponse ("Y a-t-il quelque chose que je dois savoir ?").
FRAMING = frozenset("quelque chose choses savoir sais dois devrais a-t-il y-a-t-il comment quoi".split())
# What offline ask answers when nothing in memory answers the question.
NOT_REMEMBERED = "Je ne m'en souviens pas."
# Words written with a capital inside a sentence that name no one: none.
CAPITALISED = frozenset()
PREFERENCE = re.compile(r"\b(?:j'aime|j'adore|je préfère|je déteste|préféré|préférée)\b", re.I)
# A clause that only likes what was just said ("J'adore !", "j'aime bien l'idée"): a reaction, not a preference.
REACTION = re.compile(r"(?:j'aime|j'adore|je déteste)(?: bien| beaucoup| trop)?(?: (?:ça|cela|l'idée))?", re.I)
PROFILE = re.compile(
    r"\b(?:"
    r"je suis (?:un|une|de|d'|retraité\w*|marié\w*|enceinte|divorcé\w*|célibataire|fiancé\w*|\d+|(?-i:[A-ZÉÈ])\w*)|"
    r"je m'appelle|j'habite|on habite|je travaille|né|née|déménagé|allergi\w*|intoléran\w*|"
    r"végétarien\w*|végan\w*|vegan\w*|cœliaque|je ne mange pas)\b",
    re.I,
)
DECISION = re.compile(r"\b(?:on a décidé|nous avons décidé|j'ai décidé|on va|je vais|c'est décidé|on a choisi)\b", re.I)
