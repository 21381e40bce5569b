"""A hand-made search graph (Moses' traditional format) for seed 001's paraphraser tests.

Sentence 0 translates a 5-word source; its 1-best (``forward`` from the best first
step) is ``indiana |0-0| became the |1-1| first state |2-3| . |4-4|``, seed 001's
own example shortened. Alternatives: "was the" / "became" for source word 1;
"first nation", "first country", "first , state" (punctuation), "the first state"
(a function word more) for words 2-3; "first" + "state" as two steps (2-2, 3-3);
one recombined hypothesis.
"""

GRAPH = """\
0 hyp=0 stack=0
0 hyp=1 stack=1 back=0 score=-1 transition=-1 forward=3 fscore=-4 covered=0-0 out=indiana
0 hyp=2 stack=1 back=0 score=-2.5 transition=-2.5 forward=4 fscore=-4.5 covered=0-0 out=indiana state
0 hyp=3 stack=2 back=1 score=-2 transition=-1 forward=6 fscore=-3 covered=1-1 out=became the
0 hyp=4 stack=2 back=1 score=-2.2 transition=-1.2 forward=7 fscore=-3.5 covered=1-1 out=was the
0 hyp=5 stack=2 back=1 score=-3 transition=-2 forward=8 fscore=-3.2 covered=1-1 out=became
0 hyp=12 stack=2 back=2 score=-3.5 transition=-1 recombined=3 forward=6 fscore=-3 covered=1-1 out=became the
0 hyp=6 stack=4 back=3 score=-4 transition=-2 forward=9 fscore=-1 covered=2-3 out=first state
0 hyp=7 stack=4 back=4 score=-4.7 transition=-2.5 forward=9 fscore=-1 covered=2-3 out=first nation
0 hyp=13 stack=4 back=3 score=-4.6 transition=-2.6 forward=9 fscore=-1 covered=2-3 out=first country
0 hyp=14 stack=4 back=3 score=-4.8 transition=-2.8 forward=9 fscore=-1 covered=2-3 out=first , state
0 hyp=15 stack=4 back=3 score=-5.5 transition=-3.5 forward=9 fscore=-1 covered=2-3 out=the first state
0 hyp=8 stack=3 back=5 score=-4 transition=-1 forward=10 fscore=-2.2 covered=2-2 out=first
0 hyp=10 stack=4 back=8 score=-5.2 transition=-1.2 forward=11 fscore=-1 covered=3-3 out=state
0 hyp=9 stack=5 back=6 score=-5 transition=-1 forward=-1 fscore=0 covered=4-4 out=.
0 hyp=11 stack=5 back=10 score=-6.2 transition=-1 forward=-1 fscore=0 covered=4-4 out=.
"""
BEST = "indiana |0-0| became the |1-1| first state |2-3| . |4-4|"
