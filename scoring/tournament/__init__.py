"""Competition bookkeeping from the seed tournament rules (issue 7).

``ema``: MCR table points, penalty escalation, lateness, substitutes (seed 000, EMA rules).
``gouji``: Gouji team match scoring (seed 002). ``riichi_game``: a riichi game's ledger from
hand to hand (seed 001). ``xiangqi``: the Xiangqi knockout (seed 002, section (二)). Pure
functions over plain dataclasses.
"""
