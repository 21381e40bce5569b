y apareciósele jehová en el valle de mamre , que estaba sentado al tabernáculo puerta en el calor del día .
y dije : señor mío , si he hallado ahora gracia en tus ojos , ruégote que no se apartase de tu sierva .
y abraham se dió priesa á la tienda á sara , y dijo : presto se aparejará tres seah de flor de harina , amasan , y sin levadura .
