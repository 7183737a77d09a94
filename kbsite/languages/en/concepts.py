"""English: the everyday subjects a bot is asked of ("tell me about the family", "any pets?", "what does she do?"),
each with the words of a question about it and the words that state facts of it."""

from __future__ import annotations

from kbsite.languages.reading import concept as _c

_KIN = (
    "family sister sisters brother brothers sibling siblings mother mom mum father dad parents parent son sons "
    "daughter daughters kids kid children child baby wife husband partner girlfriend boyfriend fiance fiancee "
    "married grandmother grandma grandfather grandpa grandparents aunt uncle cousin niece nephew twins"
)
CONCEPTS = (
    _c(
        "family",
        r"family|families|relatives|siblings?|kids|children|married|spouse|related|seeing anyone|dating|single|"
        r"relationship|partner|girlfriend|boyfriend|wife|husband|love life|romance|romantic|propos\w*|engaged|wedding",
        _KIN + " engaged dating relationship wedding proposed proposal together born",
    ),
    _c(
        "pets",
        r"pets?|animals?",
        "pet pets dog dogs puppy cat cats kitten parrot hamster rabbit bunny fish horse tortoise turtle beagle "
        "labrador poodle terrier retriever spaniel husky bulldog greyhound lurcher whippet collie dachshund pug "
        "chickens hens chooks goats guinea budgie gecko lizard snake axolotl adopted rescue vet",
    ),
    _c(
        "work",
        # Not "where does she work out?": exercise.
        r"what (?:does|do|did) (?:\w+ ){0,2}do(?: for (?:a )?living)?|jobs?|work(?:s|ing)?(?! out)|career|profession|"
        r"occupation|employer|employed|for a living|students?|study|studying|university|phd|business|trade|"
        r"line of work",
        "work works working job career employer company office colleague boss nurse teacher teach teaches teaching "
        "engineer developer "
        "doctor designer manager lawyer student hired promoted quit joined startup translator freelance freelancer "
        "consultant analyst architect accountant chef writer artist photographer researcher scientist postdoc phd "
        "professor lecturer thesis university business shop cafe café bakery restaurant opened opens opening shift "
        "shifts driver self-employed clients customers",
        ("employer", "occupation", "job", "job title", "role"),
    ),
    _c(
        "home",
        # Not "what does she do for a living?": work.
        r"where (?:does|do|did) (?:\w+ ){0,2}(?:live|stay|reside)|lives?|(?<!for a )living|home|city|hometown|based|"
        r"moved|"
        # A place "near me" is found from where they live.
        r"relocat\w*|address|near (?:me|her|him|them|us)|nearby|around here|in (?:my|her|his|their) area|local",
        "live lives living moved relocated move home city town apartment flat house based neighbourhood",
        ("residence", "address", "home address", "hometown"),
    ),
    _c(
        "food",
        r"eat|eats|eating|food|foods|diet\w*|cook|cooking|bake|baking|\w*cakes?|dessert|recipes?|snacks?|meal|dinner|"
        r"lunch|"
        r"restaurant|allerg\w*|menu",
        "eat eats food diet allergic allergy intolerant vegetarian vegan pescatarian gluten lactose peanuts nuts "
        "shellfish dairy cook cooking favourite dish meat keto sugar carbs",
        ("diet",),
    ),
    _c(
        "health",
        r"health|healthy|sick|ill|illness|medical|medication|doctor|condition|allerg\w*|diet\w*|medicine|meds",
        "allergic allergy asthma diabetes diabetic type medication medicine meds pills tablets inhaler epipen insulin "
        "surgery operation injury injured sick illness doctor gp therapy physio pregnant condition diagnosed "
        "diagnosis coeliac celiac intolerant migraine migraines arthritis cholesterol pressure anxiety depression "
        "knee back hip",
    ),
    _c(
        "hobbies",
        r"hobby|hobbies|free time|spare time|weekends?|fun|interests?|passion|enjoys?|relax\w*|unwind|downtime|"
        r"evenings",
        "hobby hobbies love loves enjoy enjoys play plays playing hiking painting drawing reading guitar piano cello "
        "violin drums trumpet saxophone band choir singing dance dancing salsa tango knitting crochet sewing pottery "
        "baking chess gaming games puzzles running climbing bouldering swimming cycling yoga fishing golf "
        "photography garden gardening class club",
    ),
    _c(
        "sport",
        r"train(?:s|ing)? for|races?|marathon|sports?|gym|fitness|exercise|work(?:s|ing)? out|keep(?:s|ing)? fit|"
        r"active|kickabout|football",
        "marathon race running run runs training gym cycling swimming swim yoga football tennis padel climbing "
        "bouldering hiking five-a-side physio cricket rugby hockey basketball netball volleyball baseball badminton "
        "skiing snowboarding surfing rowing kayaking judo karate pilates crossfit triathlon jogging athletics",
    ),
    _c(
        "getting around",
        r"get(?:s|ting)? around|get(?:s|ting)? to work|commute|commuting|drives?|driving|car|transport|lift|ride",
        "car bike e-bike bicycle cycle cycles cycling drive drives driving bus train tube metro scooter vespa "
        "motorbike van walk",
    ),
    _c(
        "garden",
        r"grows?|growing|garden|gardening|allotment|plants?",
        "grow grows growing garden allotment plants vegetables tomatoes herbs courgettes beans flowers",
    ),
    _c(
        "watching and reading",
        r"watch|shows?|series|tv|films?|movies?|read(?:ing)?|books?|music|listen(?:ing)?",
        "show shows series watch watching watched film movie season episode favourite book reading novel music band "
        "album",
    ),
    _c(
        "travel",
        r"holidays?|vacation|trips?|travel\w*|going away|getaway|abroad",
        "trip trips holiday vacation travel travelling cruise flight flights booked abroad cottage hotel beach visit "
        "visiting weekend away",
    ),
    _c(
        "origin",
        r"where (?:is|are|was|were) (?:\w+ ){0,2}from|grow up|grew up|hometown|home town|originally|roots|"
        r"nationality|heritage|background",
        "grew raised born originally hometown native",
        ("hometown",),
    ),
    _c(
        "plans",
        r"plans?|planning|next|upcoming|future|goals?",
        "plan plans planning going will next trip wedding goal hope want",
    ),
)
