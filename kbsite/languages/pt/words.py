"""Portuguese: the words of everyday text (stop words, small talk, salience), how statements open, the words of time
(months, "agora", "quando"), and what full text leaves out of a query."""

from __future__ import annotations

import re

from kbsite.languages.dates import date_patterns, months
from kbsite.languages.en.words import PLACEHOLDER  # noqa: F401 - a model's placeholders are written in English
from kbsite.languages.snowball import stop_words

_CHAT = frozenset(
    "sim não ok okay obrigado obrigada valeu olá oi tchau beleza legal fixe ótimo bom boa kkk kkkk haha rs pois "
    "então tipo hoje".split()
)
# The forms of "fazer" (do, make): English's function words hold "do", Snowball's Portuguese ones not.
_DO = frozenset("faço faz fazemos fazem fazer fez fiz fazia feito fazendo".split())
STOPWORDS = stop_words("portuguese") | _CHAT | _DO
TRIVIAL = frozenset(
    "olá oi obrigado obrigada valeu tchau ok okay sim não beleza legal fixe ótimo kkk haha rs bom dia boa tarde "
    "noite".split()
)
DURABLE = re.compile(
    r"\b(?:sou|estou|tenho|moro|moramos|vivo|vivemos|trabalho|me chamo|chamo-me|meu|minha|meus|minhas|nosso|nossa|"
    r"mudei|mudamos|casei|casamos|noivei|noivamos|separei|larguei|vendi|vendemos|já não|não \w+ mais|"
    r"gosto|adoro|odeio|nasci|aniversário)\b",
    re.I,
)
ANY_SENTENCE = re.compile(r"(?<=[.!?])(?<!\bSr\.)(?<!\bSra\.)(?<!\bDr\.)(?<!\bDra\.)(?<!\betc\.)\s+(?=\S)")
OPENER = re.compile(
    r"^(?:(?:(?:grande |boa |boas )?novidades?|olha|então|bom|pois|ah|oh|oi|olá|ok|sim|não|kkk+|haha|aliás)\s*"
    r"[:!,.\-–—]+|[A-Za-zÀ-ÿ][\w']*(?: [\w']+){0,2}:)\s+",
    re.I,
)
CLAUSE = re.compile(r";\s+|,?\s+(?:e|mas)\s+(?=(?:eu|agora|também|já|nós)\b)", re.I)
COMPANION = re.compile(r"(?:^|\s)(?:[Mm]eu|[Mm]inha|[Nn]osso|[Nn]ossa) (?:[\w'-]+ ){0,2}?[A-ZÀ-Ý][\w'-]+$")
BACK_REFERENCE = re.compile(
    r"^(?:(?:ele|ela) se chama|chama-se|o nome dele|o nome dela|é (?:o meu|a minha|meu|minha))", re.I
)
FAVOURITE_ALONE = re.compile(r"^(?:meu|minha|meus|minhas) (?:\w+ )?(?:favorit[oa]s?|preferid[oa]s?)\b", re.I)
VERB_OF_FAVOURITE = re.compile(r"\b(?:é|são|era|continua)\b", re.I)
QUERY_STOPWORDS = stop_words("portuguese") | frozenset("agora onde quando quem como qual quais usuário".split())

MONTHS = months(
    [("janeiro", "jan"), ("fevereiro", "fev"), ("março", "marco", "mar"), ("abril", "abr"), ("maio", "mai"),
     ("junho", "jun"), ("julho", "jul"), ("agosto", "ago"), ("setembro", "set"), ("outubro", "out"),
     ("novembro", "nov"), ("dezembro", "dez")]
)  # fmt: skip
DATE_PATTERNS = date_patterns(MONTHS, of="de", in_year="em|desde|até|de")
# Asked where: a question a statement naming a place answers (kbsite.languages.places).
WHERE = re.compile(r"\b(?:onde|aonde)\b|\b(?:que|qual) (?:cidade|país|pais|bairro|lugar|endereço|zona|região)\b", re.I)
WHEN = re.compile(r"^\s*quando\b|\b(?:que|qual|em que) (?:dia|data|mês|ano|hora)\b", re.I)
RELATIVE_TIME = re.compile(
    r"\b(?:hoje|hoje à noite|ontem|anteontem|amanhã|depois de amanhã|esta semana|este fim de semana|"
    r"(?:a )?semana passada|(?:o )?mês passado|(?:o )?ano passado|(?:a )?próxima semana|(?:o )?próximo (?:mês|ano)|"
    r"há \w+ (?:dias|semanas|meses|anos)|n[oa] (?:segunda|terça|quarta|quinta|sexta|sábado|domingo))\b",
    re.I,
)
NOW = re.compile(
    r"\b(?:agora|atualmente|hoje em dia|ainda|já não|ultimamente|neste momento|de momento|por estes dias)\b", re.I
)
# A question asking about the one that holds now, by the adjective ("o emprego atual"): how things stand now, but
# not as "now" is, beside "former" ("his former boss, not his current one" asks about the former).
CURRENT = re.compile(r"\b(?:atual|atuais)\b", re.I)
# Asked about how things were before a change ("Onde ela trabalhava antes?").
BEFORE = re.compile(r"\b(?:antes|anteriormente|antigamente|costumava|no passado)\b", re.I)
# O de antes, dito de uma pessoa ou coisa ("o senhorio anterior"): pergunta como era antes, se a pergunta não pergunta
# por agora, e não da conversa em si ("a minha pergunta anterior"): nenhuma palavra ao lado de uma de CONVERSATION.
FORMER = re.compile(r"anterior|anteriores")
CONVERSATION = frozenset("pergunta perguntas mensagem mensagens conversa conversas sessão resposta respostas".split())
# De onde alguém é: nenhuma palavra de BEFORE o pergunta.
ORIGIN = re.compile(r"(?!)")
# "Antes" do que quem pergunta vai fazer ("Algo que eu deva saber antes de convidá-la?"): um conselho.
AHEAD = re.compile(r"\b(?:dev[aeo]\w*|tenho que|tenho de|temos que|preciso|convém)\b[^.?!]*\bantes\b", re.I)
# Uma pergunta sobre uma pessoa: alguém nomeado por um pronome ("O que posso cozinhar para ela?") ou "o usuário";
# também o pronome ligado ao verbo ("convidá-la"). Não "eu" nem "meu": assim fala também quem pergunta pelo mundo
# ("Posso levar o meu filho à piscina?").
PERSON = re.compile(
    r"\b(?:ela|ele|eles|elas|dela|dele|deles|delas|seu|sua|seus|suas|lhe"
    r"|o usuário|a usuária)\b|-(?:la|lo|las|los|lhe)\b",
    re.I,
)
# Palavras que enquadram uma pergunta sem dizer nada da resposta ("Alguma coisa de saúde que eu deva saber?").
FRAMING = frozenset("algo alguma algum coisa coisas saber sabe deva devo deveria sobre há tem diga dizer".split())
# What offline ask answers when nothing in memory answers the question.
NOT_REMEMBERED = "Não me lembro de nada sobre isso."
# Words written with a capital inside a sentence that name no one: none.
CAPITALISED = frozenset()
PREFERENCE = re.compile(r"\b(?:gosto|adoro|prefiro|odeio|favorit[oa]|preferid[oa])\b", re.I)
# A clause that only likes what was just said ("Adoro!", "gosto disso"): a reaction, not a preference.
REACTION = re.compile(r"(?:gosto|adoro|odeio|gostei|adorei)(?: muito)?(?: (?:disso|disto|isso|isto|da ideia))?", re.I)
PROFILE = re.compile(
    r"\b(?:(?:sou|estou) (?:aposentad\w*|casad\w*|grávida|divorciad\w*|solteir\w*|noiv\w*)|"
    r"sou (?:um|uma|de|do|da|\d+|(?-i:[A-ZÁÉÍÓÚ])\w*)|"
    r"me chamo|chamo-me|moro|moramos|vivo|trabalho (?:na|no|em|como|de)|nasci|mudei|mudamos|"
    r"alérgic\w*|intoleran\w*|vegetarian\w*|vegan\w*|celíac\w*|não como)\b",
    re.I,
)
DECISION = re.compile(r"\b(?:decidimos|decidi|combinamos|vamos|vou|escolhemos|ficou decidido)\b", re.I)
