"""Squad-level WW2 skirmish (Hit the Deck! v1.5 with the WW2 fire-team card deck): the pure rules engine.

No gymnasium, pettingzoo or torch here. Building blocks so far: ``cards`` (each side's pack, the skill
test and skill draw), ``figures`` (figures, wounds, movement) and ``weapons`` (the seed's tables in hexes).
Rules as implemented, and every reading of the seeds: ``envs/skirmish/RULES.md``.
"""
