"""Changes of state read offline, as the supersession and the block use them: a partner's title, a condition after a
value, a thing sold or done without, put to another time or left with one's studies, the city one works in, and
statements that say nothing without the one before them. Sentences of our own, not the truth benchmark's."""

from __future__ import annotations

import pytest

from memories.ingest.changes import Change, changes, ended
from memories.ingest.statements import statement
from memories.text import statements_of


@pytest.mark.parametrize(
    "text, value",
    [
        ("Priya: My boyfriend Marco cooks every Sunday.", "dating"),
        ("Priya: Marco and I got married in June!", "married"),
        ("Priya: We're getting married next spring.", "engaged"),
        ("Priya: My fiancée loves the idea.", "engaged"),
        ("Priya: We split up over the summer.", "single"),
    ],
)
def test_where_one_stands_with_a_partner_is_one_attribute(text, value):
    """A partner's title and a change of it state one attribute, so a newer one makes an older one earlier."""
    assert statement(text).slots["relationship"] == value


def test_a_partner_named_in_passing_is_not_all_a_text_says():
    """ "My boyfriend Marco cooks every Sunday" says more than where she stands: never retired whole, only shown as
    earlier (an open conflict) when she says she married."""
    assert not statement("Priya: My boyfriend Marco cooks every Sunday.").whole
    assert "relationship" not in statement("Priya: My ex-boyfriend moved to Rome.").slots


def test_a_condition_after_a_value_does_not_undo_it():
    """ "…if you need to reach me" follows the number; a sentence opening on a condition still states nothing."""
    said = statement("My phone number is 555 0199 if you need to reach me.")
    assert said.slots == {"phone number": "555 0199"} and not said.whole
    assert statement("If I moved to Munich I would miss my friends.").slots == {}
    assert statement("Also my new phone number is 555 0342.").slots == {"phone number": "555 0342"}


def test_a_thing_ended_is_named_up_to_the_next_clause():
    """ "We sold the Passat and bought bikes": the Passat ended, not "Passat and bought"."""
    assert ended("We sold the Passat and bought two bikes.") == [frozenset({"passat"})]


@pytest.mark.parametrize(
    "text, change, older, replaced",
    [
        (
            "We postponed the housewarming to next Saturday.",
            Change("rescheduled", frozenset({"housewarming"})),
            "We're throwing a housewarming on 3 May, you're invited.",
            True,
        ),
        (
            "We postponed the housewarming to next Saturday.",
            Change("rescheduled", frozenset({"housewarming"})),
            "The housewarming playlist is ready.",
            False,  # names no time of it: nothing moved
        ),
        (
            "Went to work without the brace today.",
            Change("done without", frozenset({"brace"})),
            "I wear a wrist brace for now, the sprain is slow.",
            True,
        ),
        (
            "Went to work without the brace today.",
            Change("done without", frozenset({"brace"})),
            "I bought a new brace for climbing.",
            False,  # held for good, not for a while
        ),
        (
            "I finally graduated!",
            Change("ended", frozenset({"student"})),
            "I'm a nursing student at Leeds.",
            True,
        ),
    ],
)
def test_a_change_makes_the_older_mention_a_thing_of_the_past(text, change, older, replaced):
    assert change in changes(text)
    assert change.replaces(older) is replaced


def test_a_move_of_furniture_reschedules_nothing():
    """Only a thing put to a time is rescheduled: "to the living room" is a place."""
    assert changes("We moved the sofa to the living room.") == []


@pytest.mark.parametrize(
    "text, city",
    [
        ("Ola: I'm a pharmacist at Boots in Bristol.", "bristol"),
        ("Ola: I got transferred to the Cardiff branch last month.", "cardiff"),
        ("Ola: I teach history at a college in York.", "york"),
    ],
)
def test_the_city_one_works_in_is_read(text, city):
    assert statement(text).slots["workplace"] == city


@pytest.mark.parametrize(
    "text",
    [
        "Yesterday, at the market in Soho, I met Tom.",
        "I had a coffee at a café in Soho.",
        "I work at a hospital in the city centre.",
    ],
)
def test_a_place_not_of_work_is_no_workplace(text):
    assert "workplace" not in statement(text).slots


def test_a_statement_that_says_nothing_alone_stays_with_the_one_before():
    """A sentence opening on someone named before, or a short answer to the speaker's own question, is kept with
    it; two statements that each stand alone are still two."""
    assert statements_of("We got a puppy last week. His name is Rolo.") == [
        "We got a puppy last week. His name is Rolo."
    ]
    assert statements_of("Is it normal to feel dizzy after a flu jab? I had mine today.") == [
        "Is it normal to feel dizzy after a flu jab? I had mine today."
    ]
    assert statements_of("I moved to Ghent in May. I am allergic to kiwi.") == [
        "I moved to Ghent in May.",
        "I am allergic to kiwi.",
    ]


def test_a_favourite_is_read_where_the_sentence_names_it():
    """A sentence opening on a word that says nothing ("Honestly…") still states its favourite; "Wingspan is
    brilliant. My new favourite game!" stays one statement (its second sentence says nothing alone), read as no
    favourite: naming it from the sentence before was a reading written for one case sentence (issue 41)."""
    text = "Just tried Wingspan, it is brilliant. My new favourite game!"
    assert statements_of(text) == [text]
    assert "favourite game" not in statement(text).slots
    assert statement("Honestly my favourite game is still Catan.").slots == {"favourite game": "catan"}


@pytest.mark.parametrize(
    "text, change, older, replaced",
    [
        (
            "Petra: I've stopped cycling to the lab since the bridge closed.",
            Change("ended", frozenset({"lab"})),
            "Petra: I cycle to the lab every morning.",
            True,
        ),
        (
            "Tom: Stopped working for Deliveroo last week.",
            Change("ended", frozenset({"deliveroo"})),
            "Tom: I do evenings for Deliveroo to pay the rent.",
            True,
        ),
        (
            "Tom: Left Halcyon Books in March.",
            Change("ended", frozenset({"halcyon", "books"})),
            "Tom: Weekends I'm at Halcyon Books on the till.",
            True,
        ),
        (
            "Ana: Rui and I broke up, it was mutual.",
            Change("ended", frozenset({"rui"})),
            "Ana: Rui and I are off to Madeira for a week.",
            True,
        ),
        (
            "Ana: The Madeira holiday got cancelled, the airline went bust.",
            Change("called off", frozenset({"madeira"})),
            "Ana: Rui and I are off to Madeira in April.",
            True,
        ),
        (
            "Ana: The Madeira holiday got cancelled, the airline went bust.",
            Change("called off", frozenset({"madeira"})),
            "Ana: I grew up on Madeira.",
            False,  # no plan: it names no time
        ),
        (
            "Lena: Our son was born on Tuesday!",
            Change("ended", frozenset({"expecting"})),
            "Lena: We're expecting our first in the spring.",
            True,
        ),
        (
            "Lena: I passed my swimming test at last.",
            Change("ended", frozenset({"swimming", "lessons"})),
            "Lena: I've started swimming lessons on Mondays.",
            True,
        ),
        (
            "Omar: Plans changed, Oslo is happening in March now.",
            Change("rescheduled", frozenset({"oslo"})),
            "Omar: Going to Oslo in October for the conference.",
            True,
        ),
    ],
)
def test_more_ways_of_saying_a_thing_ended(text, change, older, replaced):
    """Stopped doing a thing, left a named place, broke up with a named person, a plan called off (said of the plan),
    a baby born, a test passed, plans changed: each makes the older mention a thing of the past."""
    assert change in changes(text)
    assert change.replaces(older) is replaced


def test_leaving_an_unnamed_place_ends_nothing():
    """ "I left the office at six" names no place of its own: nothing ended (a name is needed after "left")."""
    assert changes("Tom: I left the office at six and went for a run.") == []


@pytest.mark.parametrize(
    "text, place",
    [
        ("Nico: We finally got the keys to our new house in Clontarf!", "clontarf"),
        ("Nico: I live with two friends in a flat in Rathmines.", "rathmines"),
        ("Nico: Freelance sound designer, based in Galway.", "galway"),
        ("Nico: Bought a place in Howth last month.", "howth"),
        ("Nico: We've moved up the coast to Skerries, the commute is grim.", "skerries"),
        ("Nico: moved back home to Sligo after the lease ran out", "sligo"),
        ("Nico: We relocated across the country to Kerry.", "kerry"),
        ("Nico: I moved out west to Galway in May.", "galway"),
        ("Nico: I quit the bank and moved to Cobh.", "cobh"),
        ("Nico: We sold the van and then moved back home to Tralee.", "tralee"),
    ],
)
def test_a_home_is_read_however_it_is_said(text, place):
    """Where one lives, said through a home of one's own, who one lives with, where one is based, which way one
    moved to it ("up the coast", "back home"), or after what else one did ("quit the bank and moved to…")."""
    assert statement(text).slots["residence"] == place


@pytest.mark.parametrize(
    "text",
    [
        "Nico: I moved up to Senior Engineer in May.",
        "Nico: We moved up to the front row for the second half.",
        "Nico: We moved down the road to the pub after.",
        "Nico: The team moved over to Slack last week.",
        "Nico: I moved away to university at eighteen.",
        "Nico: My aunt sold her shop and moved to Kinsale.",
    ],
)
def test_a_move_up_down_or_over_to_something_is_no_home(text):
    """ "Up", "down", "over" and "away" alone say which way, not that one moved house: a promotion, a seat, a pub, a
    tool, leaving for university name no home."""
    assert "residence" not in statement(text).slots


def test_a_partner_named_before_and_i_stays_with_the_statement():
    """ "My sister Joana and I …" is one clause (who does it), and a cut clause put back keeps its "and"."""
    assert statements_of("My sister Joana and I run a bakery in Braga.") == [
        "My sister Joana and I run a bakery in Braga."
    ]
    assert statements_of("Kofi proposed at the lake and I said yes!! I'm still shaking.") == [
        "Kofi proposed at the lake and I said yes!!",
        "I'm still shaking.",
    ]


@pytest.mark.parametrize(
    "text, change, older",
    [
        (
            "Rosa: Packed in the warehouse job at last.",
            Change("ended", frozenset({"warehouse"})),
            "Rosa: Warehouse shifts again.",
        ),
        (
            "Rosa: goodbye overtime, hello weekends",
            Change("ended", frozenset({"overtime"})),
            "Rosa: Overtime every Friday.",
        ),
        (
            "Rosa: oh and no bike anymore, it got nicked",
            Change("ended", frozenset({"bike"})),
            "Rosa: My bike is a Raleigh.",
        ),
        (
            "Rosa: Officially a retiree as of Friday!",
            Change("retired", frozenset({"work"})),
            "Rosa: I teach maths at St Anne's, 30 years now.",
        ),
    ],
)
def test_changes_said_in_chat(text, change, older):
    """British and chatty ways of ending a thing ("packed in", "goodbye", "no bike anymore") and a retirement, which
    makes what one said of one's work a thing of the past."""
    assert change in changes(text)
    assert change.replaces(older)


def test_a_retirement_leaves_what_is_not_work_alone():
    (retired,) = [c for c in changes("Rosa: I'm retired now!") if c.how == "retired"]
    assert not retired.replaces("Rosa: My sister Ines lives in Faro.")
    assert changes("Rosa: My dad retired last year.") == []


@pytest.mark.parametrize(
    "text, slots",
    [
        ("Ivo: I work as a data engineer at Monzo", {"occupation": "data engineer", "employer": "monzo"}),
        ("Ivo: new job btw, I'm at Wise now, same hours", {"employer": "wise"}),
        ("Ivo: Cooking more. my girlfriend Ana is vegan", {"relationship": "dating"}),
        ("Ivo: I'm plant-based since January.", {"diet": "plant-based"}),
    ],
)
def test_more_attributes_read_from_chat(text, slots):
    """Where one works after what one works as, one's place now in a sentence about a job, a partner named in
    passing, a plant-based diet."""
    said = statement(text).slots
    assert {slot: said.get(slot) for slot in slots} == slots


@pytest.mark.parametrize(
    "text",
    [
        "Ivo: I'm at Gatwick now, flight delayed",
        "Ivo: I'm on antibiotics now, feeling rough",
        "Ivo: I moved to the night shift unit",
    ],
)
def test_a_place_for_now_or_of_work_is_no_employer_team_or_home(text):
    """ "I'm at Gatwick now" with no word of a job, "I'm on antibiotics now", moving to a unit at work."""
    assert not {"employer", "team", "residence"} & set(statement(text).slots)


@pytest.mark.parametrize(
    "text, slots",
    [
        ("Ivo: I quit my job at Ocado in June.", {"employer": "not ocado"}),
        ("Ivo: Left Deliveroo at the end of May.", {"employer": "not deliveroo"}),
        ("Ivo: I left for a week in Crete!", {}),
        ("Ivo: I left my bike at the station.", {}),
        ("Ivo: I quit vaping in March.", {}),
        ("Ivo: I left home at seventeen.", {}),
        ("Ivo: I left a comment on the plan.", {}),
    ],
)
def test_leaving_a_job_is_not_a_trip_a_thing_left_or_a_habit(text, slots):
    """Where one no longer works, said with or without "my job"; leaving for a trip, leaving a thing somewhere,
    quitting a habit (a verb in -ing), leaving home or leaving a comment name no employer."""
    assert {key: value for key, value in statement(text).slots.items() if key == "employer"} == slots


@pytest.mark.parametrize(
    "text, slots",
    [
        ("Ivo: I joined Monzo in May.", {"employer": "monzo"}),
        ("Ivo: Joined a climbing club in May, loving it.", {}),
        ("Ivo: I joined a book group at the library.", {}),
        ("Ivo: left the warehouse job honestly, too many night shifts.", {"employer": "not warehouse job"}),
    ],
)
def test_joining_a_club_is_no_employer_and_a_value_ends_before_chats_fillers(text, slots):
    """Joining a club, a group or a class names no employer; a filler of chat ("honestly", "tbh", "lol") ends a
    value as "now" does."""
    assert {key: value for key, value in statement(text).slots.items() if key == "employer"} == slots


@pytest.mark.parametrize("text", ["Ivo: I moved in June.", "Ivo: We moved in May, finally."])
def test_a_month_is_no_home(text):
    """ "I moved in June" says when, not where: no home of "june" to replace the one stated before."""
    assert statement(text).slots == {}


@pytest.mark.parametrize(
    "text",
    [
        # Where one lives, said of no place, or of a visit.
        "Ivo: I live in fear of my landlord.",
        "Ivo: I'm living in the moment these days.",
        "Ivo: I moved to the couch for the night.",
        "Ivo: We moved in together last spring.",
        "Ivo: I'm based in reality, unlike my brother.",
        "Ivo: I've been in London for a conference this week.",
        # Where and as what one works, said of a time, a place of the day, oneself or how.
        "Ivo: I work at night mostly.",
        "Ivo: I work at home on Fridays.",
        "Ivo: I work for myself now.",
        "Ivo: I work as hard as I can.",
        "Ivo: I started at 9.",
        "Ivo: I joined the call late.",
        "Ivo: I joined in the fun.",
        "Ivo: I left work at five.",
        "Ivo: I left the office late.",
        # How a thing of one's is, not what it is.
        "Ivo: My car is in the shop.",
        "Ivo: My job is killing me.",
        "Ivo: My boss is on holiday.",
        "Ivo: I'm single-handedly running the bake sale.",
    ],
)
def test_idioms_visits_and_states_are_no_home_employer_title_or_value(text):
    """Everyday sentences that look like a statement of where one lives or works, as what, or of a thing's value
    read as none of them: each would have replaced the value stated before."""
    assert not {"residence", "employer", "occupation", "car", "job", "boss", "relationship"} & set(
        statement(text).slots
    )


@pytest.mark.parametrize(
    "text, slots",
    [
        ("Ivo: I live in the suburbs now.", {"residence": "suburbs"}),
        ("Ivo: I'm living in Berlin for a year.", {"residence": "berlin"}),
        ("Ivo: I've been in Toronto for the last six years.", {"residence": "toronto"}),
        ("Ivo: I work at the bank on Main Street.", {"employer": "bank"}),
        ("Ivo: My car is a Skoda Octavia.", {"car": "skoda octavia"}),
        ("Ivo: I'm single again.", {"relationship": "single"}),
    ],
)
def test_the_same_shapes_still_state_a_home_an_employer_or_a_value(text, slots):
    assert statement(text).slots == slots


def test_a_reflexive_pronoun_is_nothing_liked():
    """ "Enjoy yourself!" read with the "I" put back states no liking of "yourself"."""
    assert statement("Ivo: Have fun. Enjoy yourself!", own=True).slots == {}


@pytest.mark.parametrize(
    "text, slots",
    [
        ("Zoe: Tom proposed at the top of Arthur's Seat and I said yes!!", {"relationship": "engaged"}),
        ("Zoe: SHE SAID YES!!! 💍 asked her at breakfast", {"relationship": "engaged"}),
        ("Zoe: I'm from Lagos but I've been in Leeds four years now", {"residence": "leeds"}),
        ("Zoe: we're in Perth full time now.", {"residence": "perth"}),
    ],
)
def test_a_proposal_said_yes_to_and_where_one_has_been(text, slots):
    """A proposal said yes to (across clauses or sentences) is an engagement; "I've been in Leeds four years" is where
    one lives, the time after it no part of the place."""
    said = statement(text).slots
    assert {slot: said.get(slot) for slot in slots} == slots


def test_a_proposal_said_no_to_is_no_engagement():
    assert "relationship" not in statement("Zoe: He proposed and I said no, too soon.").slots


def test_a_common_word_ended_leaves_a_long_statement_that_merely_uses_it():
    """ "goodbye nights" (night shifts) ends "mostly night shifts", not a long turn about the family that goes on
    "on free nights I go to salsa"; a name ended ends even a long statement that names it."""
    (nights,) = changes("Ana: I moved to the day clinic so goodbye nights")
    assert nights.replaces("Ana: I'm a nurse on the ward, mostly night shifts ugh, so my sleep is a disaster")
    family = (
        "Ana: At home it's me, my husband Rui and two cats, Bolt and Kiko, and my sister Eva lives in Porto and calls "
        "every single day lol. "
        "on free nights I go to salsa"
    )
    assert not nights.replaces(family)
    (clio,) = changes("Ana: We sold the Clio!")
    assert clio.replaces(family.replace("two cats", "two cats and the old Clio"))


@pytest.mark.parametrize(
    "text, slots",
    [
        ("Ines: live w my cousin in Rathgar and cycle to work", {"residence": "rathgar"}),
        ("Ines: still living w my parents in Ranelagh bc rent is mad", {"residence": "ranelagh"}),
        ("Ines: Moved in w dara in stoneybatter!", {"residence": "stoneybatter"}),
        ("Ines: ok so i moved into a houseshare in Phibsborough w three lads", {"residence": "phibsborough"}),
        ("Ines: I live by myself in the cottage in Dingle since Mam passed.", {"residence": "dingle"}),
        ("Ines: I am office manager at Kerry Group Tralee.", {"employer": "kerry group tralee"}),
        # A verb opening the sentence is no one's name: the speaker got the keys, not someone called "Got".
        ("Got the keys to my own flat in Drumcondra last week!", {"residence": "drumcondra"}),
    ],
)
def test_attributes_said_without_a_subject_or_in_short(text, slots):
    """As people chat: no subject ("live w my cousin in…"), "w" for with, "bc" ending the place, a houseshare, "by
    myself"; one's place now in a sentence about a home; the car one drives or swapped for another; what one is, at
    where."""
    said = statement(text).slots
    assert {slot: said.get(slot) for slot in slots} == slots


@pytest.mark.parametrize(
    "text",
    [
        "Ines: I'm at Dunnes now, need anything?",
        "Ines: I'm a member at Westwood, gym three times a week.",
        "Ines: I'm a student at Trinity.",
        "Ines: I drive a hard bargain, always have.",
        "Ines: My mum retired last year, moved to Spain.",
        "Ines: I'm at Gatwick now, flying home tonight.",
        "Ines: I'm a tenant with Peabody.",
        "Ines: I'm a lot better at Python now",
        "Ines: I drive the M25 every day.",
        "Ines: I'm driving my Mum's Fiesta this week",
    ],
)
def test_a_place_or_a_title_that_is_not_a_home_an_employer_or_a_car(text):
    """ "I'm at Dunnes now" with no word of a home, or at an airport; a member or a student of a place, a tenant, better
    at something; a hard bargain, a road, someone else's car; someone else's move in a clause without a subject."""
    assert not {"employer", "residence", "car"} & set(statement(text).slots)


def test_a_plan_called_off_by_another_word_for_it():
    """ "the family trip's scrapped" calls off what was said to be "a family holiday to Kerry in July"."""
    called_off = [c for c in changes("Ines: the family trip's scrapped, money's tight") if c.how == "called off"]
    assert any(c.replaces("Ines: We're planning a family holiday to Kerry in July.") for c in called_off)


def test_a_thing_ended_ends_a_long_statement_that_calls_it_ones_own():
    """ "sold the bike" ends a long statement riding "my bike" (not one only using the word)."""
    (bike,) = changes("Ines: Bus only now, sold the bike before the move.")
    long = (
        "Ines: every day out to Sandyford on my bike, forty minutes each way, and the rain never stops here, "
        "then my brother Cian rings every evening to moan about college exams"
    )
    assert bike.replaces(long)
    assert not bike.replaces(long.replace("on my bike", "past the bike shop"))
    assert bike.replaces(long.replace("Ines: every day out to Sandyford on my bike", "Ines: My bike to Sandyford"))


@pytest.mark.parametrize(
    "text",
    [
        "Ivo: I dropped the kids at school.",
        "Ivo: I dropped my phone in the bath.",
        "Ivo: I lost my keys again.",
        "Ivo: I lost the match on Sunday.",
        "Ivo: I lost track of time.",
    ],
)
def test_a_thing_put_down_or_mislaid_has_not_ended(text):
    """Dropping someone somewhere, or a phone into the bath, and losing keys, a match or track of time end nothing:
    "I dropped the kids at school" marked "My kids Mia and Leo are 5 and 7" earlier."""
    assert ended(text) == []
    assert not changes(text)


@pytest.mark.parametrize(
    "text, thing",
    [
        ("Ivo: I dropped out of the Spanish course.", {"spanish", "course"}),
        ("Ivo: I quit complaining about the weather.", {"complaining"}),
        ("Ivo: We lost Luna last week.", {"luna"}),
    ],
)
def test_a_thing_ended_is_named_without_its_article_or_what_it_is_about(text, thing):
    """An article is no word of a thing ("the" would name every text that uses it), nor what a thing is about."""
    assert ended(text) == [frozenset(thing)]


def test_what_breaks_up_with_an_object_is_not_a_couple_and_giving_up_on_a_thing_is_its_name():
    assert statement("Ivo: We broke up the fight.").slots == {}
    assert statement("Ivo: I gave up on guitar.").slots == {"likes guitar": "no"}


@pytest.mark.parametrize(
    "text",
    [
        "Ivo: Call me crazy but I like it.",
        "Ivo: Call me when you can.",
        "Ivo: I'm engaged in a lawsuit with the landlord.",
        "Ivo: We're separated by an ocean.",
        "Ivo: I'm married to my job lol.",
        "Ivo: My email is down.",
        "Ivo: My school is closed today.",
        "Ivo: My boss is vegan.",
        "Ivo: My boss is a nightmare.",
        "Ivo: Joined late, sorry.",
        "Ivo: Quit while you're ahead.",
    ],
)
def test_what_only_looks_like_a_name_a_partner_or_a_value_is_none(text):
    assert not {"name", "relationship", "email", "school", "boss", "employer"} & set(statement(text).slots)
    assert not [thing for thing in ended(text) if "you're" in thing]


@pytest.mark.parametrize(
    "text, slots",
    [
        ("Ivo: Call me Liz.", {"name": "liz"}),
        ("Ivo: My boss is Karen.", {"boss": "karen"}),
        ("Ivo: We got married in June.", {"relationship": "married"}),
        ("Ivo: I'm separated from my husband.", {"relationship": "single"}),
        ("Ivo: My email is ivo@example.com.", {"email": "ivo@example.com"}),
    ],
)
def test_a_name_a_partner_and_an_address_still_read_whole(text, slots):
    """An e-mail address keeps its dots: "ivo@example.com" and "ivo@example.org" are two addresses."""
    assert statement(text).slots == slots


@pytest.mark.parametrize(
    "text, slots",
    [
        ("Oisin: We rent a flat in Chorlton, so no drilling.", {"residence": "chorlton"}),
        ("Oisin: we're renting a little house in Didsbury now", {"residence": "didsbury"}),
        ("Oisin: Since March we rent a cottage in Hebden Bridge.", {"residence": "hebden bridge"}),
        ("Oisin: From the balcony of my new flat in Hove I can see the pier.", {"residence": "hove"}),
        ("Oisin: The boxes are everywhere in our new place in Aarhus.", {"residence": "aarhus"}),
        ("Oisin: In September I begin as a staff nurse at Royal Free.", {"employer": "royal free"}),
        ("Oisin: In September I begin as a staff nurse at Royal Free.", {"occupation": "staff nurse"}),
        ("Oisin: From next month I'm starting at Deliveroo.", {"employer": "deliveroo"}),
        ("Oisin: I start as a junior developer at Monzo on Monday.", {"occupation": "junior developer"}),
    ],
)
def test_a_home_rented_or_new_and_a_job_begun_are_read_a_time_said_first_too(text, slots):
    """A home rented ("we rent a flat in…") or named as one's new one anywhere in a clause ("…of my new flat in Hove
    I can see…": the value ends before the next "I"); a job one starts or begins at, as what; a time said before
    the subject ("In September I begin as…", "Since March we rent…")."""
    said = statement(text).slots
    assert {slot: said.get(slot) for slot in slots} == slots


@pytest.mark.parametrize(
    "text",
    [
        "Oisin: My sister's new flat in Hove is lovely.",
        "Oisin: Her new house in Bath has a garden.",
        "Oisin: I start at 9 tomorrow.",
        "Oisin: I'm starting at the bottom.",
        "Oisin: I started as a joke, honestly.",
        "Oisin: I rent a car in Spain every summer.",
        "Oisin: Last weekend I joined a mentorship program for young carers.",
        "Oisin: This is where I'm headed.",
        "Oisin: In case I move to Leeds next year, I will need a car.",
    ],
)
def test_someone_elses_new_home_a_time_a_start_or_a_rented_car_state_no_home_job_or_title(text):
    """Someone else's new home, a time one starts at, starting "at the bottom" or "as a joke", a car rented somewhere,
    a programme joined; "this" opening a sentence is no time said before its subject, "in case" a condition."""
    assert not {"employer", "residence", "occupation"} & set(statement(text).slots)
    assert not any(slot.startswith("is ") for slot in statement(text).slots)
