"""Spanish: the everyday subjects a bot is asked of ("háblame de tu familia", "¿tienes mascotas?", "¿a qué se
dedica?"), each with the words of a question about it and the words that state facts of it."""

from __future__ import annotations

from kbsite.languages.reading import concept as _c

_KIN = (
    "familia hermana hermanas hermano hermanos madre mamá padre papá padres hijo hijos hija hijas niños bebé mujer "
    "marido esposo esposa pareja novio novia prometido prometida casado casada abuela abuelo abuelos tía tío prima "
    "primo sobrina sobrino mellizos gemelos"
)
CONCEPTS = (
    _c(
        "family",
        r"familia|familiares|herman[oa]s?|hij[oa]s|niños|casad[oa]|pareja|novi[oa]|mujer|marido|espos[oa]|"
        r"sale con alguien|soltero|soltera|relación|boda|prometid[oa]|comprometid[oa]",
        _KIN + " boda prometidos juntos nació",
    ),
    _c(
        "pets",
        r"mascotas?|animal(?:es)?",
        "mascota mascotas perro perra perros gato gata gatos cachorro gatito loro hámster conejo pez peces caballo "
        "tortuga adoptamos adopté adopción veterinario",
    ),
    _c(
        "work",
        r"a qué se dedica|a qué te dedicas|en qué trabaja|trabajo|trabaja|trabajas|empleo|curro|profesión|empresa|"
        r"oficio|estudia|estudias|estudiante|carrera|negocio",
        "trabajo trabaja trabajo empresa oficina compañeros jefe jefa enfermera enfermero profesor profesora "
        "ingeniera ingeniero médica médico diseñadora diseñador abogada abogado contratado contratada empecé "
        "puesto turno turnos clientes autónomo autónoma estudiante universidad tesis negocio tienda",
        ("employer", "occupation", "workplace"),
    ),
    _c(
        "home",
        r"dónde vive|dónde vives|vive|vives|casa|ciudad|barrio|cerca de (?:mí|casa|ella|él)|por aquí|mudanza|"
        r"mudad[oa]|dirección",
        "vivo vive vivimos mudado mudé mudamos casa piso apartamento ciudad barrio llaves",
        ("residence", "address"),
    ),
    _c(
        "food",
        r"comer|come|comida|dieta|cocinar|cena|cenar|almuerzo|comer fuera|restaurante|receta|recetas|alergi\w*|menú|"
        r"postre",
        "como comer comida dieta alérgica alérgico alergia intolerante vegetariana vegetariano vegana vegano "
        "celíaca celíaco gluten lactosa frutos secos marisco carne pescado",
        ("diet",),
    ),
    _c(
        "health",
        r"salud|enferm[oa]|médic[oa]|medicación|medicamentos?|alergi\w*|condición|lesión|dolor",
        "alérgica alérgico alergia asma diabetes diabética diabético medicación pastillas inhalador operación "
        "lesión rodilla espalda embarazada migraña ansiedad fisio diagnosticado diagnosticada",
    ),
    _c(
        "hobbies",
        r"afici(?:ón|ones)|hobby|hobbies|tiempo libre|fines? de semana|le gusta hacer|te gusta hacer|divertirse|"
        r"relajarse",
        "afición encanta gusta toco toca guitarra piano violín batería coro cantar bailar salsa pintar leer "
        "ajedrez videojuegos correr escalar nadar yoga pesca fotografía jardín huerto clases club",
    ),
    _c(
        "sport",
        r"deportes?|gimnasio|gym|entrena\w*|maratón|carrera|ejercicio|actividad física|en forma|fútbol|pádel",
        "maratón correr corro entreno gimnasio bici ciclismo natación nado yoga fútbol tenis pádel escalada",
    ),
    _c(
        "getting around",
        # "Auto", "carro" and "manejar": the car and driving in most of Latin America.
        r"cómo (?:va|vas|se mueve|te mueves)|transporte|coche|auto|carro|conduce|conduces|maneja|manejas|moto|bici|"
        r"va al trabajo",
        "coche auto carro camioneta bici bicicleta conduzco conduce manejo maneja moto autobús metro tren patinete "
        "andando",
    ),
    _c(
        "travel",
        r"viajes?|vacaciones|escapada|extranjero|viajar",
        "viaje viajes vacaciones crucero vuelo vuelos reservado hotel playa visita visitar escapada",
    ),
    _c(
        "origin",
        r"de dónde es|de dónde eres|dónde creció|dónde creciste|orígenes|nacionalidad|natal",
        "nací nació crecí criado criada origen natal",
        ("hometown",),
    ),
    _c("plans", r"planes|plan|próxim[oa]s?|futuro|objetivos?", "plan planes vamos voy próximo boda viaje objetivo"),
)
