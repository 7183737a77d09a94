"""Portuguese: the everyday subjects a bot is asked of ("fala-me da tua família", "tens animais?", "o que ela
faz?"), each with the words of a question about it and the words that state facts of it."""

from __future__ import annotations

from kbsite.languages.reading import concept as _c

CONCEPTS = (
    _c(
        "family",
        r"família|irmã\w*|irmãos?|filhos?|filhas?|casad[oa]|namorad[oa]|mulher|marido|espos[oa]|relação|relacionamento|"
        r"casamento|noiv[oa]|solteir[oa]|famílias|parentes|cônjuge|cónjuge|namora|namoro|namorando|crianças|"
        r"vida amorosa|romântic[oa]|casar|casou|casaram",
        "família irmã irmão mãe mamãe pai papai pais filho filha filhos bebé bebê mulher marido esposa esposo namorado "
        "namorada noivo noiva casados casamento avó avô tia tio primo prima irmãs irmãos filhas criança crianças "
        "miúdos mamã papá companheiro companheira casado casada avós vovó vovô tios sobrinha sobrinho gêmeos gémeos "
        "noivos noivado namoro relação relacionamento juntos nasceu",
    ),
    _c(
        "pets",
        r"animais|animal de estimação|bichos?|pets?",
        "cão cachorro cadela gato gata gatos gatinho hamster coelho papagaio peixe cavalo adotamos adotei veterinário "
        "pet cães cachorros cachorrinho filhote tartaruga galinhas cabras periquito lagarto resgatado resgatada "
        "adotado adotada veterinária labrador poodle beagle husky",
    ),  # fmt: skip
    _c(
        "work",
        r"trabalh\w*|emprego|profissão|empresa|estud\w*|faculdade|o que (?:ela|ele) faz|carreira|ocupação|universidade|"
        r"doutorado|doutoramento|ganha a vida|empregos",
        "trabalho trabalha empresa escritório colegas chefe contratado contratada larguei emprego turno enfermeira "
        "enfermeiro professor professora engenheira engenheiro médica médico estudante trabalhando carreira colega "
        "ensino ensina programador programadora desenvolvedor desenvolvedora designer gerente gestor gestora advogado "
        "advogada promovido promovida demissão startup tradutor tradutora freelancer autônomo autónomo autônoma "
        "autónoma consultor consultora analista arquiteto arquiteta contabilista contador contadora cozinheiro "
        "cozinheira chef escritor escritora artista fotógrafo fotógrafa investigador investigadora pesquisador "
        "pesquisadora cientista doutorado doutoramento tese universidade faculdade negócio loja padaria restaurante "
        "abri abrimos turnos motorista clientes",
        ("employer", "occupation", "workplace"),
    ),
    _c(
        "home",
        r"onde (?:mora|vive|moras|vives)|mora|moras|vive|casa|cidade|bairro|perto de (?:mim|casa)|mudança|"
        r"mud(?:ou|aste|ei)|morada|endereço|moram|vivem|por aqui|perto daqui|perto (?:dele|dela)",
        "moro mora moramos vivo vive mudei mudamos casa apartamento cidade bairro chaves morar morando mudou mudança "
        "lar vila",
        ("residence", "address"),
    ),
    _c(
        "food",
        r"comer|come|comida|dieta|cozinhar|jantar|almoço|restaurante|receitas?|alergi\w*|cozinha|refeição|refeições|"
        r"sobremesas?|bolos?|lanches?|petiscos?|cardápio",
        "como comer comida dieta vegetariana vegetariano vegana vegano alérgica alérgico alergia glúten lactose nozes "
        "carne peixe come intolerante intolerância amendoim amendoins marisco mariscos laticínios lacticínios cozinhar "
        "cozinho cozinha favorito favorita preferido preferida prato pratos keto açúcar carboidratos hidratos",
        ("diet",),
    ),
    _c(
        "health",
        r"saúde|doente|médic[oa]|remédios?|medicamentos?|alergi\w*|lesão|saudável|doenças?|medicação|dieta|lesões",
        "alérgica alérgico alergia asma diabetes remédios cirurgia lesão joelho costas grávida enxaqueca diabético "
        "diabética medicação medicamento medicamentos remédio comprimidos insulina inalador operado operada lesionado "
        "lesionada doente doença médico médica terapia fisioterapia fisio diagnosticado diagnosticada diagnóstico "
        "celíaco celíaca intolerante enxaquecas artrite artrose colesterol tensão pressão ansiedade depressão anca "
        "quadril",
    ),  # fmt: skip
    _c(
        "hobbies",
        r"hobb(?:y|ies)|passatempos?|tempo livre|fins? de semana|tempos livres|lazer|interesses|relaxar|descontrair",
        "toco toca guitarra piano coro cantar dançar pintar ler xadrez correr escalada nadar ioga fotografia jardim "
        "clube aulas hobby passatempo adoro adora jogo jogar joga caminhada trilhas pintura desenho desenhar leitura "
        "violoncelo violino trompete saxofone banda canto dança salsa tango tricô tricotar crochê croché costura "
        "costurar cerâmica videojogos videogames jogos puzzles corrida natação ciclismo yoga pesca pescar golfe "
        "jardinagem curso",
    ),  # fmt: skip
    _c(
        "sport",
        r"esportes?|desportos?|academia|ginásio|trein\w*|maratona|exercício|atividade física|em forma|futebol|"
        r"exercícios|fitness|malhar|desportista|esportista",
        "maratona correr corrida treino academia ginásio bicicleta natação nadar ioga futebol ténis tênis escalada "
        "corro corre treinar treina ciclismo yoga padel caminhada trilhas fisio musculação futsal basquete "
        "basquetebol vôlei voleibol andebol handebol râguebi rúgbi hóquei esqui surf surfe remo judô judo caratê "
        "karaté pilates crossfit triatlo atletismo",
    ),
    _c(
        "getting around",
        r"carro|automóvel|dirige|conduz|transportes?|se desloca|bicicleta|moto|vai (?:para o|pro) trabalho|carros|"
        r"dirigir|conduzir|mota|boleia|carona|bike",
        "carro automóvel bicicleta bike moto ônibus autocarro metrô metro comboio trem patinete dirijo conduzo dirige "
        "conduz trotinete mota carrinha van caminhando",
    ),
    _c(
        "garden",
        r"jardim|jardinagem|horta|hortas|plantas|cultiva|cultivar|quintal",
        "cultiva cultivo cultivar jardim horta quintal plantas legumes hortaliças verduras tomates ervas aromáticas "
        "flores",
    ),
    _c(
        "watching and reading",
        r"séries?|tv|televisão|filmes?|cinema|livros?|ler|leitura|lê|música|novelas?",
        "série séries televisão filme filmes cinema temporada episódio episódios favorito favorita preferido preferida "
        "livro livros leitura novela música banda álbum",
    ),
    _c(
        "travel",
        r"viage\w*|férias|passeio|viaj\w*|no estrangeiro|no exterior|passeios",
        "viagem férias voo hotel praia reservado visita passeio viagens viajar viajamos cruzeiro voos avião reservei "
        "reservamos estrangeiro chalé visitar",
    ),
    _c(
        "origin",
        r"de onde (?:é|és|são)|de onde (?:ela|ele|você) (?:é|vem)|(?:é|és) de onde|"
        r"onde (?:ela |ele |você )?(?:cresceu|cresceste|nasceu|nasceste)|naturalidade|nacionalidade|origens|"
        r"originári[oa]|terra natal",
        "cresci cresceu nasci nasceu originário originária nativo nativa naturalidade",
        ("hometown",),
    ),
    _c(
        "plans",
        r"planos?|planej\w*|planear|planeia\w*|próxim[oa]s?|futuro|objetivos?|metas?",
        "plano planos planejando planejamos próximo próxima objetivo objetivos meta metas espero quero queremos vamos "
        "vou casamento viagem",
    ),
)
