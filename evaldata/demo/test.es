y aparecióle jehová en el valle de mamre , estando él sentado á la puerta de su tienda en el calor del día .
y dijo : señor , si ahora he hallado gracia en tus ojos , ruégote que no pases de tu siervo .
entonces abraham fué de priesa á la tienda á sara , y le dijo : toma presto tres medidas de flor de harina , amasa y haz panes cocidos debajo del rescoldo .
y corrió abraham á las vacas , y tomó un becerro tierno y bueno , y diólo al mozo , y dióse éste priesa á aderezarlo .
y le dijeron : ¿ dónde está sara tu mujer ? y él respondió : aquí en la tienda .
y abraham y sara eran viejos , entrados en días : á sara había cesado ya la costumbre de las mujeres .
rióse , pues , sara entre sí , diciendo : ¿ después que he envejecido tendré deleite , siendo también mi señor ya viejo ?
entonces jehová dijo á abraham : ¿ por qué se ha reído sara diciendo : será cierto que he de parir siendo ya vieja ?
entonces jehová le dijo : por cuanto el clamor de sodoma y gomorra se aumenta más y más , y el pecado de ellos se ha agravado en extremo ,
descenderé ahora , y veré si han consumado su obra según el clamor que ha venido hasta mí ; y si no , saberlo he .
quizá hay cincuenta justos dentro de la ciudad : ¿ destruirás también y no perdonarás al lugar por cincuenta justos que estén dentro de él ?
y dijo : no se enoje ahora mi señor , si hablare : quizá se hallarán allí treinta. y respondió : no lo haré si hallare allí treinta .
y dijo : he aquí ahora que he emprendido el hablar á mi señor : quizá se hallarán allí veinte. no la destruiré , respondió , por amor de los veinte .
y volvió á decir : no se enoje ahora mi señor , si hablare solamente una vez : quizá se hallarán allí diez. no la destruiré , respondió , por amor de los diez .
y díjoles : vosotros habéis guardado todo lo que moisés siervo de jehová os mandó , y habéis obedecido á mi voz en todo lo que os he mandado .
no habéis dejado á vuestros hermanos en estos muchos días hasta hoy , antes habéis guardado la observancia de los mandamientos de jehová vuestro dios .
solamente que con diligencia cuidéis de poner por obra el mandamiento y la ley , que moisés siervo de jehová os intimó : que améis á jehová vuestro dios , y andéis en todos sus caminos ; que guardéis sus mandamientos , y os alleguéis á él , y le sirváis de todo vuestro corazón y de toda vuestra alma .
y hablóles , diciendo : volveos á vuestras tiendas con grandes riquezas , y con grande copia de ganado , con plata , y con oro , y metal , y muchos vestidos : partid con vuestros hermanos el despojo de vuestros enemigos .
y los hijos de israel oyeron decir como los hijos de rubén y los hijos de gad , y la media tribu de manasés , habían edificado un altar delante de la tierra de canaán , en los términos del jordán , al paso de los hijos de israel :
y enviaron los hijos de israel á los hijos de rubén y á los hijos de gad y á la media tribu de manasés en la tierra de galaad , á phinees hijo de eleazar sacerdote ,
nosotros , pues , dijimos : si aconteciere que tal digan á nosotros , ó á nuestras generaciones en lo por venir , entonces responderemos : mirad el símil del altar de jehová , el cual hicieron nuestros padres , no para holocaustos ó sacrificios , sino para que fuese testimonio entre nosotros y vosotros .
y dijo phinees hijo del sacerdote eleazar , á los hijos de rubén , á los hijos de gad , y á los hijos de manasés : hoy hemos entendido que jehová está entre nosotros , pues que no habéis intentado esta traición contra jehová. ahora habéis librado á los hijos de israel de la mano de jehová .
y aconteció que habiendo samuel envejecido , puso sus hijos por jueces sobre israel .
mas no anduvieron los hijos por los caminos de su padre , antes se ladearon tras la avaricia , recibiendo cohecho y pervirtiendo el derecho .
entonces todos los ancianos de israel se juntaron , y vinieron á samuel en rama ,
y descontentó á samuel esta palabra que dijeron : danos rey que nos juzgue. y samuel oró á jehová .
dijo pues : este será el derecho del rey que hubiere de reinar sobre vosotros : tomará vuestros hijos , y pondrálos en sus carros , y en su gente de á caballo , para que corran delante de su carro :
diezmará también vuestro rebaño , y seréis sus siervos .
y clamaréis aquel día á causa de vuestro rey que os habréis elegido , mas jehová no os oirá en aquel día .
y encontróse absalom con los siervos de david : é iba absalom sobre un mulo , y el mulo se entró debajo de un espeso y grande alcornoque , y asiósele la cabeza al alcornoque , y quedó entre el cielo y la tierra ; pues el mulo en que iba pasó delante .
y joab respondió al hombre que le daba la nueva : y viéndolo tú , ¿ por qué no le heriste luego allí echándole á tierra ? y sobre mí , que te hubiera dado diez siclos de plata , y un talabarte .
entonces joab tocó la corneta , y el pueblo se volvió de seguir á israel , porque joab detuvo al pueblo .
y había absalom en su vida tomado y levantádose una columna , la cual está en el valle del rey ; porque había dicho : yo no tengo hijo que conserve la memoria de mi nombre. y llamó aquella columna de su nombre : y así se llamó el lugar de absalom , hasta hoy .
entonces ahimaas hijo de sadoc tornó á decir á joab : sea lo que fuere , yo correré ahora tras cusi. y joab dijo : hijo mío , ¿ para qué has tú de correr , pues que no hallarás premio por las nuevas ?
y el atalaya volvió á decir : paréceme el correr del primero como el correr de ahimaas hijo de sadoc. y respondió el rey : ese es hombre de bien , y viene con buena nueva .
y el rey dijo : pasa , y ponte allí. y él pasó , y paróse .
habíala cercado , y despedregádola , y plantádola de vides escogidas : había edificado en medio de ella una torre , y también asentado un lagar en ella : y esperaba que llevase uvas , y llevó uvas silvestres .
haré que quede desierta ; no será podada ni cavada , y crecerá el cardo y las espinas : y aun á las nubes mandaré que no derramen lluvia sobre ella .
ciertamente la viña de jehová de los ejércitos es la casa de israel , y los hombres de judá planta suya deleitosa. esperaba juicio , y he aquí vileza ; justicia , y he aquí clamor .
y diez huebras de viña producirán un zaque , y treinta modios de simiente darán tres modios .
¡ ay de los que se levantan de mañana para seguir la embriaguez ; que se están hasta la noche , hasta que el vino los enciende !
y en sus banquetes hay arpas , vihuelas , tamboriles , flautas , y vino ; y no miran la obra de jehová , ni consideran la obra de sus manos .
y el hombre será humillado , y el varón será abatido , y bajados serán los ojos de los altivos .
los que dan por justo al impío por cohechos , y al justo quitan su justicia !
sus saetas amoladas , y todos sus arcos entesados ; las uñas de sus caballos parecerán como de pedernal , y las ruedas de sus carros como torbellino .
y cada uno engaña á su compañero , y no hablan verdad : enseñaron su lengua á hablar mentira , se ocupan de hacer perversamente .
saeta afilada es la lengua de ellos ; engaño habla ; con su boca habla paz con su amigo , y dentro de sí pone sus asechanzas .
¿ no los tengo de visitar sobre estas cosas ? dice jehová . ¿ de tal gente no se vengará mi alma ?
sobre los montes levantaré lloro y lamentación , y llanto sobre las moradas del desierto ; porque desolados fueron hasta no quedar quien pase , ni oyeron bramido de ganado : desde las aves del cielo y hasta las bestias de la tierra se trasportaron , y se fueron .
y pondré á jerusalem en montones , por morada de culebras ; y pondré las ciudades de judá en asolamiento , que no quede morador .
por tanto , así ha dicho jehová de los ejércitos , dios de israel : he aquí que á este pueblo yo les daré á comer ajenjos , y les daré á beber aguas de hiel .
y los esparciré entre gentes que no conocieron ellos ni sus padres ; y enviaré espada en pos de ellos , hasta que yo los acabe .
y dense prisa , y levanten llanto sobre nosotros , y córranse nuestros ojos en lágrimas , y nuestros párpados en aguas se destilen .
mas alábese en esto el que se hubiere de alabar : en entenderme y conocerme , que yo soy jehová , que hago misericordia , juicio , y justicia en la tierra : porque estas cosas quiero , dice jehová .
he aquí que vienen días , dice jehová , y visitaré sobre todo circuncidado , y sobre todo incircunciso :
denunciad en las gentes , y haced saber ; levantad también bandera : publicad , y no encubráis : decid : tomada es babilonia , bel es confundido , deshecho es merodach ; confundidas son sus esculturas , quebrados son sus ídolos .
porque subió contra ella gente del aquilón , la cual pondrá su tierra en asolamiento , y no habrá ni hombre ni animal que en ella more : moviéronse , se fueron .
preguntarán por el camino de sión , hacia donde volverán sus rostros , diciendo : venid , y juntaos á jehová con pacto eterno , que jamás se ponga en olvido .
ovejas perdidas fueron mi pueblo : sus pastores las hicieron errar , por los montes las descarriaron : anduvieron de monte en collado , olvidáronse de sus majadas .
porque he aquí que yo suscito y hago subir contra babilonia reunión de grandes pueblos de la tierra del aquilón ; y desde allí se aparejarán contra ella , y será tomada : sus flechas como de valiente diestro , que no se tornará en vano .
y la caldea será para presa : todos los que la saquearen , saldrán hartos , dice jehová .
porque os alegrasteis , porque os gozasteis destruyendo mi heredad , porque os henchisteis como becerra de renuevos , y relinchasteis como caballos ;
por la ira de jehová no será habitada , sino que asolada será toda ella ; todo hombre que pasare por babilonia se asombrará , y silbará sobre todas sus plagas .
apercibíos contra babilonia alrededor , todos los que entesáis arco ; tirad contra ella , no escatiméis las saetas : porque pecó contra jehová .
ganado descarriado es israel ; leones lo amontonaron : el rey de asiria lo devoró el primero ; este nabucodonosor rey de babilonia lo deshuesó el postrero .
y volveré á traer á israel á su morada , y pacerá en el carmelo y en basán ; y en el monte de ephraim y de galaad se hartará su alma .
púsete lazos , y aun fuiste tomada , oh babilonia , y tú no lo supiste : fuiste hallada , y aun presa , porque provocaste á jehová .
voz de los que huyen y escapan de la tierra de babilonia , para dar las nuevas en sión de la venganza de jehová nuestro dios , de la venganza de su templo .
haced juntar sobre babilonia flecheros , á todos los que entesan arco ; asentad campo sobre ella alrededor ; no escape de ella ninguno : pagadle según su obra ; conforme á todo lo que ella hizo , haced con ella : porque contra jehová se ensoberbeció , contra el santo de israel .
así ha dicho jehová de los ejércitos : oprimidos fueron los hijos de israel y los hijos de judá juntamente : y todos los que los tomaron cautivos , se los retuvieron ; no los quisieron soltar .
cuchillo sobre los caldeos , dice jehová , y sobre los moradores de babilonia , y sobre sus príncipes , y sobre sus sabios .
sequedad sobre sus aguas , y secaránse : porque tierra es de esculturas , y en ídolos enloquecen .
por tanto , allí morarán bestias monteses con lobos , morarán también en ella pollos de avestruz : y no más será poblada para siempre , ni se habitará de generación en generación .
por tanto , oid el consejo de jehová , que ha acordado sobre babilonia , y sus pensamientos que ha formado sobre la tierra de los caldeos : ciertamente los más pequeños del hato los arrastrarán , y destruirán sus moradas con ellos .
a los cinco del mes , que fué en el quinto año de la transmigración del rey joachîn ,
y en medio de ella , figura de cuatro animales. y este era su parecer ; había en ellos semejanza de hombre .
y cada uno tenía cuatro rostros , y cuatro alas .
y estando yo mirando los animales , he aquí una rueda en la tierra junto á los animales , á sus cuatro caras .
y cuando los animales andaban , las ruedas andaban junto á ellos : y cuando los animales se levantaban de la tierra , las ruedas se levantaban .
y sobre las cabezas de cada animal aparecía expansión á manera de cristal maravilloso , extendido encima sobre sus cabezas .
y debajo de la expansión estaban las alas de ellos derechas la una á la otra ; á cada uno dos , y otras dos con que se cubrían sus cuerpos .
y cuando se paraban y aflojaban sus alas , oíase voz de arriba de la expansión que había sobre sus cabezas .
y vi apariencia como de ámbar , como apariencia de fuego dentro de ella en contorno , por el aspecto de sus lomos para arriba ; y desde sus lomos para abajo , vi que parecía como fuego , y que tenía resplandor alrededor .
cual parece el arco del cielo que está en las nubes el día que llueve , así era el parecer del resplandor alrededor. esta fué la visión de la semejanza de la gloria de jehová. y luego que yo la hube visto , caí sobre mi rostro , y oí voz de uno que hablaba .
y díjome otra vez jehová : ve , ama una mujer amada de su compañero , aunque adúltera , como el amor de jehová para con los hijos de israel ; los cuales miran á dioses ajenos , y aman frascos de vino .
compréla entonces para mí por quince dineros de plata , y un homer y medio de cebada ;
y díjele : tú estarás por mía muchos días : no fornicarás , ni tomarás otro varón ; ni tampoco yo vendré á ti .
porque muchos días estarán los hijos de israel sin rey , y sin príncipe , y sin sacrificio , y sin estatua , y sin ephod , y sin teraphim .
pío y temeroso de dios con toda su casa , y que hacía muchas limosnas al pueblo , y oraba á dios siempre .
este vió en visión manifiestamente , como á la hora nona del día , que un ángel de dios entraba á él , y le decía : cornelio .
a los cuales , después de habérselo contado todo , los envió á joppe .
y esto fué hecho por tres veces ; y el vaso volvió á ser recogido en el cielo .
y estando pedro pensando en la visión , le dijo el espíritu : he aquí , tres hombres te buscan .
levántate , pues , y desciende , y no dudes ir con ellos ; porque yo los he enviado .
entonces metiéndolos dentro , los hospedó. y al día siguiente , levantándose , se fué con ellos ; y le acompañaron algunos de los hermanos de joppe .
y hablando con él , entró , y halló á muchos que se habían juntado .
por lo cual , llamado , he venido sin dudar. así que pregunto : ¿ por qué causa me habéis hecho venir ?
y dijo : cornelio , tu oración es oída , y tus limosnas han venido en memoria en la presencia de dios .
a éste levantó dios al tercer día , é hizo que apareciese manifiesto ,
no á todo el pueblo , sino á los testigos que dios antes había ordenado , es á saber , á nosotros que comimos y bebimos con él , después que resucitó de los muertos .
