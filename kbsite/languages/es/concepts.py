"""Spanish: the everyday subjects a bot is asked of ("háblame de tu familia", "¿tienes mascotas?", "¿a qué se
dedica?"), each with the words of a question about it and the words that state facts of it."""

from __future__ import annotations

from kbsite.languages.reading import concept as _c

_KIN = (
    "familia hermana hermanas hermano hermanos madre mamá padre papá padres hijo hijos hija hijas niños bebé mujer "
    "marido esposo esposa pareja novio novia prometido prometida casado casada abuela abuelo abuelos tía tío prima "
    "primo sobrina sobrino mellizos gemelos niño niña niñas abuelas tíos tías primos primas sobrinos sobrinas gemelas "
    "novios comprometido comprometida casados"
)
CONCEPTS = (
    _c(
        "family",
        r"familia|familiares|herman[oa]s?|hij[oa]s|niños|casad[oa]|pareja|novi[oa]|mujer|marido|espos[oa]|"
        r"sale con alguien|soltero|soltera|relación|boda|prometid[oa]|comprometid[oa]|familias|parientes|cónyuge|"
        r"vida amorosa|romance|romántic[oa]|matrimonio|casarse|se casó|se casa|se casan",
        _KIN + " boda prometidos juntos nació juntas relación matrimonio",
    ),
    _c(
        "pets",
        r"mascotas?|animal(?:es)?",
        "mascota mascotas perro perra perros gato gata gatos cachorro gatito loro hámster conejo pez peces caballo "
        "tortuga adoptamos adopté adopción veterinario perrito conejito periquito gallinas cabras cobaya lagarto "
        "serpiente adoptado adoptada protectora rescatado rescatada veterinaria labrador caniche galgo carlino beagle "
        "husky bulldog",
    ),
    _c(
        "work",
        r"a qué se dedica|a qué te dedicas|en qué trabaja|trabajo|trabaja|trabajas|empleo|curro|profesión|empresa|"
        r"oficio|estudia|estudias|estudiante|carrera|negocio|trabajar|trabajando|trabajos|ocupación|universidad|"
        r"doctorado|estudiantes|estudiar|estudiando|estudios|se gana la vida|negocios",
        "trabajo trabaja empresa oficina compañeros jefe jefa enfermera enfermero profesor profesora ingeniera "
        "ingeniero médica médico diseñadora diseñador abogada abogado contratado contratada empecé puesto turno turnos "
        "clientes autónomo autónoma estudiante universidad tesis negocio tienda trabajando empleo curro carrera "
        "compañero compañera maestro maestra profe enseño enseña desarrollador desarrolladora programador programadora "
        "gerente encargado encargada ascendido ascendida ascenso renuncié dimití startup traductor traductora "
        "freelance consultor consultora analista arquitecto arquitecta contable contador contadora cocinero cocinera "
        "chef escritor escritora artista fotógrafo fotógrafa investigador investigadora científico científica "
        "doctorado cafetería panadería restaurante abrí abrimos conductor conductora",
        ("employer", "occupation", "workplace"),
    ),
    _c(
        "home",
        r"dónde vive|dónde vives|vive|vives|casa|ciudad|barrio|cerca de (?:mí|casa|ella|él)|por aquí|mudanza|mudad[oa]|"
        r"dirección|viven|vivienda|se mudó|por la zona|en (?:mi|su|tu) zona|domicilio|reside",
        "vivo vive vivimos mudado mudé mudamos casa piso apartamento ciudad barrio llaves vivir viviendo mudó mudanza "
        "hogar pueblo",
        ("residence", "address"),
    ),
    _c(
        "food",
        r"comer|come|comida|dieta|cocinar|cena|cenar|almuerzo|comer fuera|restaurante|receta|recetas|alergi\w*|menú|"
        r"postre|comidas|comiendo|cocina|cocinando|hornear|pasteles?|tartas?|bizcochos?|postres|snacks?|desayuno|"
        r"desayunar",
        "como comer comida dieta alérgica alérgico alergia intolerante vegetariana vegetariano vegana vegano celíaca "
        "celíaco gluten lactosa frutos secos marisco carne pescado come intolerancia cacahuetes cacahuete maní nueces "
        "mariscos lácteos cocino cocinar favorito favorita plato platos keto azúcar carbohidratos",
        ("diet",),
    ),
    _c(
        "health",
        r"salud|enferm[oa]|médic[oa]|medicación|medicamentos?|alergi\w*|condición|lesión|dolor|saludable|enfermedad\w*|"
        r"medicinas|dieta|pastillas|lesiones",
        "alérgica alérgico alergia asma diabetes diabética diabético medicación pastillas inhalador operación lesión "
        "rodilla espalda embarazada migraña ansiedad fisio diagnosticado diagnosticada medicina medicamento "
        "medicamentos comprimidos insulina cirugía operado operada lesionado lesionada enfermo enferma enfermedad "
        "médico médica doctor doctora terapia fisioterapeuta padezco diagnóstico intolerante migrañas artritis "
        "colesterol tensión presión depresión cadera",
    ),
    _c(
        "hobbies",
        r"afici(?:ón|ones)|hobby|hobbies|tiempo libre|fines? de semana|le gusta hacer|te gusta hacer|divertirse|"
        r"relajarse|ratos? libres?|pasatiempos?|pasión|disfruta|disfrutas|desconectar|relaja|relajar|finde",
        "afición encanta gusta toco toca guitarra piano violín batería coro cantar bailar salsa pintar leer ajedrez "
        "videojuegos correr escalar nadar yoga pesca fotografía jardín huerto clases club hobby aficiones disfruto "
        "disfruta juego juega jugar senderismo pintura dibujar dibujo lectura violonchelo chelo trompeta saxofón saxo "
        "banda canto baile tango tejer ganchillo coser costura cerámica repostería juegos puzles escalada natación "
        "ciclismo pescar golf jardinería",
    ),
    _c(
        "sport",
        r"deportes?|gimnasio|gym|entrena\w*|maratón|carrera|ejercicio|actividad física|en forma|fútbol|pádel|"
        r"deportista|maratones|fitness|ejercicios|futbol",
        "maratón correr corro entreno gimnasio bici ciclismo natación nado yoga fútbol tenis pádel escalada corre "
        "entrenamiento entrena entrenar gym nadar futbol senderismo fisio pesas baloncesto básquet voleibol "
        "balonmano rugby hockey béisbol esquí surf remo judo kárate pilates crossfit triatlón atletismo",
    ),
    _c(
        "getting around",
        # "Auto", "carro" and "manejar": the car and driving in most of Latin America.
        r"cómo (?:va|vas|se mueve|te mueves)|transporte|coche|auto|carro|conduce|conduces|maneja|manejas|moto|bici|"
        r"va al trabajo|conducir|manejar|coches|autos|carros|bicicleta|se desplaza|llega al trabajo",
        "coche auto carro camioneta bici bicicleta conduzco conduce manejo maneja moto autobús metro tren patinete "
        "andando conducir manejar bus motocicleta furgoneta caminando caminar tranvía",
    ),
    _c(
        "garden",
        r"jardín|jardinería|huerto|huerta|plantas|cultiva|cultivas|cultivar",
        "cultivo cultiva cultivar jardín huerto huerta plantas verduras hortalizas tomates hierbas aromáticas "
        "calabacines flores",
    ),
    _c(
        "watching and reading",
        r"series?|tele|televisión|películas?|pelis?|cine|libros?|leer|lee|lees|leyendo|lectura|novelas?|música|"
        r"escuchar",
        "serie series tele televisión película películas peli pelis cine temporada capítulo capítulos episodio "
        "episodios favorito favorita libro libros lectura leyendo novela música banda álbum",
    ),
    _c(
        "travel",
        r"viajes?|vacaciones|escapada|extranjero|viajar|viaja|viajas|viajando|escapadas",
        "viaje viajes vacaciones crucero vuelo vuelos reservado hotel playa visita visitar escapada viajar viajando "
        "viajamos reservé reservamos extranjero cabaña finde visitando avión",
    ),
    _c(
        "origin",
        r"de dónde es|de dónde eres|dónde creció|dónde creciste|orígenes|nacionalidad|natal|de dónde son|dónde nació|"
        r"dónde naciste|dónde (?:se crió|te criaste)|originari[oa]|procedencia",
        "nací nació crecí criado criada origen natal nacido nacida crecimos crié originario originaria nativo nativa",
        ("hometown",),
    ),
    _c(
        "plans",
        r"planes|plan|próxim[oa]s?|futuro|objetivos?|planea|planeas|planean|planeando|metas",
        "plan planes vamos voy próximo boda viaje objetivo planeando planeamos próxima objetivos meta espero ojalá "
        "quiero queremos",
    ),
)
