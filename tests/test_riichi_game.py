"""The riichi game ledger: seed 001 (riichi rules, French), the sentence quoted in each test.

Payments from han and fu: base = fu × 2^(2+han), ron 4 × base (dealer 6 ×), tsumo 1 × base
from each non-dealer and 2 × from the dealer, each rounded up to 100.
"""
from dataclasses import replace
from fractions import Fraction

import pytest

from scoring.tournament.riichi_game import (
    E_ABORTIVE_REASON, E_BAD_VALUE, E_FOUR_RIICHI, E_FURITEN, E_FOUR_KANS, E_GAME_OVER,
    E_PLAYERS, E_RIICHI_TWICE, E_TENPAI_TWICE, E_RIICHI_WITHOUT_1000, E_RON_BY_DISCARDER, E_TWO_HAN_MINIMUM,
    E_UNKNOWN_PLAYER, E_WINNERS, EMA, MLEAGUE_STYLE, Abortive, Chombo, Draw, GameError, Options,
    Riichi, Ron, Tsumo, Value, apply, final_ranking, new_game, play, standings_line)

P = ("A", "B", "C", "D")          # seats East, South, West, North at the start: A deals first


def points(state):
    return dict(zip(state.players, state.points))


def at(events, options=Options()):
    return play(P, events, options)[-1]


def refused(code, events, options=Options()):
    with pytest.raises(GameError) as exc:
        play(P, events, options)
    assert exc.value.code == code, str(exc.value)
    return str(exc.value)


def test_start_25000_each():
    s = new_game(P)
    assert s.points == (25000,) * 4 and s.round_name == "East 1" and s.dealer == 0
    assert (s.honba, s.sticks) == (0, 0)


# « met en gage un bâton de 1000 points »
def test_riichi_puts_1000_on_the_table():
    s = at([Riichi("B")])
    assert points(s) == {"A": 25000, "B": 24000, "C": 25000, "D": 25000} and s.sticks == 1


def test_riichi_with_fewer_than_1000_is_refused():
    # A pays a non-dealer's mangan ron (8,000) twice, then 7,700: 1,300 left
    s = at([Ron("A", {"B": Value(han=5)}), Ron("A", {"C": Value(han=5)})])
    assert s.points[0] == 25000 - 8000 - 8000
    events = [Ron("A", {"B": Value(han=5)}), Ron("A", {"C": Value(han=5)}),
              Ron("A", {"B": Value(han=4, fu=30)})]            # 7700: A has 1300
    assert at(events).points[0] == 1300
    ok = at(events + [Riichi("A")])
    assert ok.points[0] == 300
    # the dealer D's 1 han 30 fu ron: 30 × 8 × 6 = 1440 → 1500 takes A to -200
    msg = refused(E_RIICHI_WITHOUT_1000, events + [Ron("A", {"D": Value(han=1, fu=30)}),
                                                   Riichi("A")])
    assert "A has -200 points" in msg and "event 5" in msg


def test_riichi_twice_in_one_hand_is_refused():
    refused(E_RIICHI_TWICE, [Riichi("B"), Riichi("B")])


# « Le gagnant récupère le montant calculé du ou des joueurs perdants ainsi que toutes les
#   mises de riichi éventuelles. »
def test_ron_pays_the_value_and_the_sticks():
    s = at([Riichi("B"), Riichi("C"), Ron("D", {"B": Value(han=3, fu=30)})])
    # 3 han 30 fu non-dealer ron: 30 × 2^5 × 4 = 3840 → 3900; plus 2 sticks
    assert points(s) == {"A": 25000, "B": 24000 + 3900 + 2000, "C": 24000, "D": 25000 - 3900}
    assert s.sticks == 0


# « Si un autre joueur qu'Est gagne, les vents tournent et les compteurs sont remis à zéros. »
def test_non_dealer_win_rotates_and_resets_counters():
    s = at([Draw(("A",)), Tsumo("B", Value(han=1, fu=30))])
    assert s.round_name == "East 2" and s.dealer == 1 and s.honba == 0


# « Si le gagnant est Est, il reste Est et on incrémente un compteur »
# « Chaque compteur rapporte un bonus de 300 points en cas de victoire (100 point par joueur si
#   le gagnant pioche sa tuile). »
def test_dealer_win_stays_and_counters_pay_300_or_100_each():
    s = at([Ron("C", {"A": Value(han=2, fu=30)})])       # 30 × 16 × 6 = 2880 → 2900
    assert points(s)["A"] == 27900 and s.round_name == "East 1" and s.honba == 1
    s = apply(s, Ron("C", {"A": Value(han=2, fu=30)}))    # 2900 + 300
    assert points(s) == {"A": 27900 + 3200, "B": 25000, "C": 25000 - 2900 - 3200, "D": 25000}
    assert s.honba == 2
    s = apply(s, Tsumo("B", Value(han=1, fu=30)))         # base 240: 500 / 300, + 200 each
    assert points(s) == {"A": 31100 - 700, "B": 25000 + 700 + 500 + 500, "C": 18900 - 500,
                         "D": 25000 - 500}
    assert s.honba == 0 and s.dealer == 1


# « Les joueurs noten payent aux joueurs tenpai une pénalité d'un montant total de 3000
#   points. Ainsi si un seul joueur est en attente, il reçoit 1000 de chacun des trois autres
#   joueurs alors que si un seul des joueurs n'était pas en attente, il paye 1000 points à
#   chacun des trois autres. Si deux joueurs sont tenpai, les deux autres joueurs noten payent
#   chacun 1500 points. »
@pytest.mark.parametrize("tenpai, want", [
    (("B",), {"A": 24000, "B": 28000, "C": 24000, "D": 24000}),
    (("A", "B", "C"), {"A": 26000, "B": 26000, "C": 26000, "D": 22000}),
    (("B", "D"), {"A": 23500, "B": 26500, "C": 23500, "D": 26500}),
    ((), {p: 25000 for p in P}),
    (P, {p: 25000 for p in P}),
])
def test_exhaustive_draw_noten_payments(tenpai, want):
    assert points(at([Draw(tenpai)])) == want


# « Est reste Est uniquement s'il est tenpai sinon les vents tournent. Un compteur est toujours
#   ajouté. »
def test_exhaustive_draw_dealer_stays_only_if_tenpai_counter_always_added():
    s = at([Draw(("A",))])
    assert (s.round_name, s.honba) == ("East 1", 1)
    s = at([Draw(("B",))])
    assert (s.round_name, s.honba) == ("East 2", 1)


# « Un joueur ayant déclaré riichi mais ne terminant pas sa main suite à l'épuisement du mur
#   doit montrer son jeu afin de prouver que sa main était bien tenpai. En cas contraire, une
#   pénalité lui est appliquée (chombo, faute grave). » « Après une pénalité chombo, la partie
#   est annulée, Est reste Est mais le compteur n'est pas incrémenté. »
def test_noten_riichi_at_a_draw_is_chombo():
    s = at([Riichi("C"), Draw(("A",))])
    # C (non-dealer) pays a mangan tsumo: 4,000 to the dealer A, 2,000 to B and D; no noten
    # payment although only A is tenpai; the stick stays; no counter
    assert points(s) == {"A": 29000, "B": 27000, "C": 24000 - 8000, "D": 27000}
    assert (s.round_name, s.honba, s.sticks) == ("East 1", 0, 1)
    assert "C declared riichi and is noten" in s.lines[0]
    # two noten riichi players: each pays one (tournament: 20,000 each at the ranking)
    s = at([Riichi("B"), Riichi("C"), Draw(())], EMA)
    assert s.penalties == (0, -20000, -20000, 0) and s.sticks == 2


# « Lors d'une partie nulle (partie du mur ou annulée), les mises de riichi restent en jeu et
#   sont récupérées par le prochain gagnant. »
def test_sticks_after_a_draw_go_to_the_next_winner():
    s = at([Riichi("B"), Draw(("B",))])
    assert s.sticks == 1 and points(s)["B"] == 24000 + 3000
    s = apply(s, Tsumo("D", Value(han=1, fu=30)))
    # 1 counter: 500 + 100 from the dealer B, 300 + 100 from A and C; and the stick
    assert points(s)["D"] == 24000 + 600 + 400 + 400 + 1000 and s.sticks == 0


# « En cas d'annulation de partie il n'y a pas de pénalité noten. Est reste Est et il n'y a pas
#   de compteur d'ajouté. »
@pytest.mark.parametrize("reason, kans", [("nine_terminals", ()), ("four_kans", "ABBD"),
                                          ("four_winds", ())])
def test_abortive_draw_dealer_stays_no_counter(reason, kans):
    s = at([Draw(("A",)), Riichi("C"), Abortive(reason, tuple(kans))])
    assert (s.round_name, s.honba, s.sticks) == ("East 1", 1, 1)
    assert points(s) == {"A": 28000, "B": 24000, "C": 23000, "D": 24000}


# « Personne ne gagne après l'écart d'un quatrième kan, sauf si les quatre appartiennent au même
#   joueur mais un cinquième annulera la partie. »
def test_four_kans_abortive_only_by_different_players():
    assert at([Abortive("four_kans", ("A", "B", "A", "C"))]).round_name == "East 1"
    msg = refused(E_FOUR_KANS, [Abortive("four_kans", ("B",) * 4)])
    assert "all B's" in msg
    s = at([Abortive("four_kans", ("B",) * 4 + ("C",))])          # the fifth kan annuls
    assert (s.round_name, s.honba, s.points) == ("East 1", 0, (25000,) * 4)
    refused(E_FOUR_KANS, [Abortive("four_kans")])                    # who made them?
    refused(E_FOUR_KANS, [Abortive("four_kans", ("A", "B", "C", "D", "A"))])
    refused(E_UNKNOWN_PLAYER, [Abortive("four_kans", ("A", "B", "C", "Zed"))])
    refused(E_FOUR_KANS, [Abortive("nine_terminals", ("A",))])


# « Tous les joueurs ont déclaré riichi. »
def test_four_riichi_needs_four_riichi():
    s = at([Riichi(p) for p in P] + [Abortive("four_riichi")])
    assert s.sticks == 4 and s.round_name == "East 1"
    refused(E_FOUR_RIICHI, [Riichi("A"), Riichi("B"), Riichi("C"), Abortive("four_riichi")])
    refused(E_ABORTIVE_REASON, [Abortive("five_dragons")])


# « Le joueur fautif paye l'équivalent d'un mangan tsumo. » « Si Est est le joueur pénalisé, il
#   paye l'équivalent d'un mangan tsumo inversé (en tant que donneur : 12 000 points au lieu de
#   8000) » « Après une pénalité chombo, la partie est annulée, Est reste Est mais le compteur
#   n'est pas incrémenté. »
def test_dealer_chombo_pays_4000_to_each():
    s = at([Chombo("A")])
    assert points(s) == {"A": 13000, "B": 29000, "C": 29000, "D": 29000}
    assert (s.round_name, s.honba) == ("East 1", 0)


def test_non_dealer_chombo_pays_4000_to_the_dealer_2000_to_the_others():
    s = at([Draw(("A",)), Riichi("B"), Chombo("C")])
    assert points(s) == {"A": 28000 + 4000, "B": 24000 - 1000 + 2000, "C": 24000 - 8000,
                         "D": 24000 + 2000}
    assert (s.round_name, s.honba, s.sticks) == ("East 1", 1, 1)    # sticks stay


# « En tournois ou ligues, le joueur fautif ne paye rien aux adversaires mais est pénalisé au
#   classement. ... (EMA ...) de 20 000 points, et ... NPM ... pénalise le joueur fautif de
#   40 000 points. »
@pytest.mark.parametrize("penalty", [20000, 40000])
def test_tournament_chombo_pays_nothing_and_loses_at_the_ranking(penalty):
    opts = Options(chombo="tournament", chombo_penalty=penalty)
    s = at([Chombo("B")], opts)
    assert s.points == (25000,) * 4 and s.penalties == (0, -penalty, 0, 0)
    ranking = {r.name: r for r in final_ranking(s, opts)}
    assert ranking["B"].final == -penalty and ranking["B"].place == 1   # places unchanged


# « Si plusieurs joueurs gagnent sur un écart, le donneur devra payer la valeur de la main
#   augmentée des points de compteurs pour chaque joueur. »
# « Si plusieurs joueurs gagnent en même temps, le gagnant le plus proche de la droite du
#   jeteur les récupère. »
def test_double_ron_each_paid_with_counters_sticks_to_the_nearer_winner():
    events = [Draw(("A",)), Riichi("B"), Riichi("A"),
              Ron("C", {"A": Value(han=1, fu=30), "B": Value(han=1, fu=30)})]
    s = at(events)
    # C is seat 2: D (seat 3) would be first on its right, then A, then B. A is nearer.
    # A (dealer): 30 × 8 × 6 = 1440 → 1500, + 300; B: 960 → 1000, + 300; 2 sticks to A
    assert points(s) == {"A": 28000 - 1000 + 1800 + 2000, "B": 24000 - 1000 + 1300,
                         "C": 24000 - 3100, "D": 24000}
    assert (s.round_name, s.honba) == ("East 1", 2)      # the dealer won: stays, +1 counter
    # option: the counters to the stick winner only
    s = at(events, Options(honba_to_each_winner=False))
    assert points(s)["B"] == 24000 - 1000 + 1000 and points(s)["C"] == 24000 - 2800


def test_ron_refusals():
    refused(E_RON_BY_DISCARDER, [Ron("A", {"A": Value(han=1, fu=30)})])
    refused(E_WINNERS, [Ron("A", {})])
    refused(E_UNKNOWN_PLAYER, [Ron("A", {"Zed": Value(han=1, fu=30)})])
    refused(E_BAD_VALUE, [Ron("A", {"B": Value(han=0, fu=30)})])
    refused(E_BAD_VALUE, [Ron("A", {"B": Value(han=2, fu=35)})])
    refused(E_BAD_VALUE, [Ron("A", {"B": Value(han=2, fu=30, dora=2)})])   # dora are not yaku


# « Un joueur furiten ne peut alors gagner que sur pioche »
def test_furiten_ron_is_refused_furiten_tsumo_is_not():
    msg = refused(E_FURITEN, [Ron("A", {"B": Value(han=1, fu=30, furiten=True)})])
    assert "B is furiten" in msg
    assert at([Tsumo("B", Value(han=1, fu=30, furiten=True))]).points[1] == 26100


# « Dans certaines variantes, au bout de 5 compteurs, il faut au minimum 2 hans (les doras ne
#   comptent jamais pour ce minimum) pour déclarer mah-jong. »
def test_two_han_minimum_from_five_counters():
    opts = Options(two_han_from_five=True)
    five = [Draw(("A",))] * 5
    assert at(five, opts).honba == 5
    msg = refused(E_TWO_HAN_MINIMUM, five + [Ron("B", {"C": Value(han=3, fu=30, dora=2)})], opts)
    assert "has 1 without dora" in msg
    assert at(five + [Ron("B", {"C": Value(han=2, fu=30)})], opts).points[2] == 20000 + 2000 + 1500
    assert at(five[:4] + [Ron("B", {"C": Value(han=1, fu=30)})], opts).honba == 0
    assert at(five + [Ron("B", {"C": Value(han=1, fu=30)})]).honba == 0   # option off


def test_game_ends_after_south_4_east_only_and_bust():
    # the deal passes eight times: East 1..4, South 1..4
    s = at([Draw(())] * 7)
    assert s.round_name == "South 4" and not s.ended
    s = at([Draw(())] * 8)
    assert s.ended and "South 4" in s.ended
    refused(E_GAME_OVER, [Draw(())] * 8 + [Riichi("A")])
    assert at([Draw(())] * 4, Options(east_only=True)).ended
    assert at([Draw(("D",))] * 3 + [Draw(("D",))], Options(east_only=True)).ended is None
    # bust: the dealer B's yakuman ron (48,000 + 300 for the counter) takes A under zero
    busted = [Draw(()), Ron("A", {"B": Value(yakuman=1)})]
    assert at(busted).points[0] == -23300 and not at(busted).ended
    assert "A is under zero" in at(busted, Options(bust_ends=True)).ended


def test_bad_players_refused():
    with pytest.raises(GameError) as exc:
        new_game(("A", "B", "C"))
    assert exc.value.code == E_PLAYERS
    with pytest.raises(GameError):
        new_game(("A", "B", "C", "A"))


def test_ema_final_ranking_uma_and_ties_share():
    s = at([Ron("C", {"B": Value(han=3, fu=30)})], EMA)    # B 33900, C 26100, A D 30000
    ranking = final_ranking(s, EMA)
    assert [(r.name, r.place, r.final) for r in ranking] == [
        ("B", 1, 3900 + 15000), ("A", 2, 0), ("D", 2, 0), ("C", 4, -3900 - 15000)]


def test_left_over_sticks_go_to_the_first():
    s = at([Riichi("B"), Draw(("B",))] + [Draw(())] * 7, Options())
    assert s.ended and s.sticks == 1
    top = final_ranking(s)[0]
    assert (top.name, top.points) == ("B", 24000 + 3000 + 1000)


def test_a_whole_east_only_game_of_8_hands_worked_by_hand():
    """Options: 25,000 counted from 30,000 (oka 20,000), uma 20/10/−10/−20, East round only."""
    opts = Options(start=25000, return_points=30000, uma=(20000, 10000, -10000, -20000),
                   east_only=True)
    assert opts == replace(MLEAGUE_STYLE, east_only=True)
    hands = [
        # 1 East 1, dealer A. B riichi, B tsumo 2 han 30 fu: base 480; A pays 1000, C D 500
        [Riichi("B"), Tsumo("B", Value(han=2, fu=30))],
        # 2 East 2, dealer B. Draw, B and C tenpai: A and D pay 1500 each
        [Draw(("B", "C"))],
        # 3 East 2, 1 counter. A riichi; dealer B ron on A, 3 han 40 fu: 1280 × 6 = 7680 →
        #   7700 + 300 = 8000, and the stick
        [Riichi("A"), Ron("A", {"B": Value(han=3, fu=40)})],
        # 4 East 2, 2 counters. C tsumo mangan: dealer B 4000 + 200, A and D 2000 + 200
        [Tsumo("C", Value(han=5))],
        # 5 East 3, dealer C. D riichi, abortive draw (four kans): stick stays, no counter
        [Riichi("D"), Abortive("four_kans", ("A", "C", "C", "D"))],
        # 6 East 3. Chombo by A: 4000 to the dealer C, 2000 to B and D
        [Chombo("A")],
        # 7 East 3. B riichi; dealer C discards, A (2 han 40 fu: 2560 → 2600) and D (3 han
        #   30 fu: 3840 → 3900) ron; D sits at C's right: the 2 sticks to D. Dealer lost: rotate
        [Riichi("B"), Ron("C", {"A": Value(han=2, fu=40), "D": Value(han=3, fu=30)})],
        # 8 East 4, dealer D. A ron on B, 1 han 30 fu: 960 → 1000. Deal passes: game over
        [Ron("B", {"A": Value(han=1, fu=30)})],
    ]
    want = [  # A, B, C, D after each hand; round; counters; sticks
        ((24000, 27000, 24500, 24500), "East 2", 0, 0),
        ((22500, 28500, 26000, 23000), "East 2", 1, 0),
        ((13500, 37500, 26000, 23000), "East 2", 2, 0),
        ((11300, 33300, 34600, 20800), "East 3", 0, 0),
        ((11300, 33300, 34600, 19800), "East 3", 0, 1),
        ((3300, 35300, 38600, 21800), "East 3", 0, 1),
        ((5900, 34300, 32100, 27700), "East 4", 0, 0),
        ((6900, 33300, 32100, 27700), "game over", 0, 0),
    ]
    s = new_game(P, opts)
    for i, (events, (pts, rnd, honba, sticks)) in enumerate(zip(hands, want), 1):
        for ev in events:
            s = apply(s, ev, opts)
        assert sum(s.points) + 1000 * s.sticks == 100000, i
        assert (s.points, "game over" if s.ended else s.round_name, s.honba, s.sticks) == \
            (pts, rnd, honba, sticks), f"hand {i}"
    assert "game over" in standings_line(s)
    # final: points − 30,000 + uma, + oka 4 × 5,000 to the first
    ranking = final_ranking(s, opts)
    assert [(r.name, r.place, r.final) for r in ranking] == [
        ("B", 1, 3300 + 20000 + 20000), ("C", 2, 2100 + 10000),
        ("D", 3, -2300 - 10000), ("A", 4, -23100 - 20000)]
    assert sum(r.final for r in ranking) == 0
    assert isinstance(ranking[0].uma, Fraction)


# --- values no hand has (issue 32, a tester's findings 1-3) --------------------------------
# Seed 001, line 108: « Une main à 1 yaku 20 mini-points n'existe pas » ; line 110: « Une main
# pinfu tout caché tiré comptera que pour 2 yakus (pinfu et tsumo) et 20 mini-points ».
def test_one_han_twenty_fu_does_not_exist():
    msg = refused(E_BAD_VALUE, [Tsumo("B", Value(han=1, fu=20))])
    # said in English with a short citation; the French stays here, as the source
    assert "a 20-fu hand is a closed pinfu tsumo: pinfu and menzen tsumo, 2 han (riichi rules, fu)" in msg
    assert "B's tsumo" in msg and "«" not in msg
    # pinfu tsumo, 2 han 20 fu: base 20 × 2^4 = 320: the dealer A pays 640 → 700, C and D 400
    s = at([Tsumo("B", Value(han=2, fu=20))])
    assert points(s) == {"A": 24300, "B": 26500, "C": 24600, "D": 24600}


# Line 99: « 20 mini-points sont systématiquement accordés en cas de victoire, portés à 30 si la
# main est entièrement cachée et que la victoire est obtenue en volant la tuile gagnante »;
# line 103: an open hand adds 2 « en cas de pinfu ouvert » (line 112: « soit une main à 1-30 »).
# A ron is 30 fu at least, 25 for seven pairs (line 106).
def test_a_ron_has_thirty_fu_at_least():
    msg = refused(E_BAD_VALUE, [Ron("A", {"B": Value(han=2, fu=20)})])
    assert "a ron has 30 fu at least" in msg
    # 2 han 30 fu: 30 × 2^4 × 4 = 1920 → 2000
    assert points(at([Ron("A", {"B": Value(han=2, fu=30)})]))["A"] == 23000


# Line 106: « Une victoire sur 7 paires vaut 25 mini-points ». Seven pairs (chiitoitsu) is a
# 2-han yaku, always closed, so its tsumo adds menzen tsumo: 3 han at least. The han are
# common riichi knowledge: seed 001 does not carry the yaku table.
@pytest.mark.parametrize("event, ok", [
    (Ron("A", {"B": Value(han=1, fu=25)}), False),
    (Ron("A", {"B": Value(han=2, fu=25)}), True),
    (Ron("A", {"B": Value(han=2, fu=25, dora=1)}), False),    # chiitoitsu's 2 han are no dora
    (Tsumo("B", Value(han=1, fu=25)), False),
    (Tsumo("B", Value(han=2, fu=25)), False),
    (Tsumo("B", Value(han=3, fu=25)), True),
    (Tsumo("B", Value(han=3, fu=20, dora=2)), False),         # pinfu + tsumo: 2 without dora
])
def test_seven_pairs_is_2_han_by_ron_3_by_tsumo(event, ok):
    if ok:
        at([event])
    else:
        assert "does not exist" in refused(E_BAD_VALUE, [event])


def test_seven_pairs_payments():
    # 2 han 25 fu ron: 25 × 2^4 × 4 = 1600; 3 han 25 fu tsumo: base 800, dealer 1600, others 800
    assert points(at([Ron("A", {"B": Value(han=2, fu=25)})]))["A"] == 23400
    assert points(at([Tsumo("B", Value(han=3, fu=25))])) == {
        "A": 23400, "B": 28200, "C": 24200, "D": 24200}


# Every han (1..4) and fu (0..130) by ron and by tsumo: the pairs that exist are those the
# rules above give, and only those. From 5 han fu are not counted (line 95: « Les mini-points
# ne sont pas calculés pour les mains mangan (5 hans) et au-delà »).
def test_which_han_and_fu_exist_by_win_type():
    def exists(han, fu, tsumo):
        if fu in range(30, 111, 10):
            return True
        if fu == 25:
            return han >= (3 if tsumo else 2)
        return fu == 20 and tsumo and han >= 2

    for tsumo in (False, True):
        for han in range(1, 5):
            for fu in range(0, 131):
                v = Value(han=han, fu=fu)
                ev = Tsumo("B", v) if tsumo else Ron("A", {"B": v})
                try:
                    at([ev])
                    took = True
                except GameError as exc:
                    assert exc.code == E_BAD_VALUE
                    took = False
                assert took == exists(han, fu, tsumo), (han, fu, tsumo)
    at([Ron("A", {"B": Value(han=5, fu=0)}), Tsumo("C", Value(han=6, fu=20))])


# A tenpai list naming a player twice would pay them twice over the 3,000 of « une pénalité
# d'un montant total de 3000 points » (line 38): refused, as a winner named twice is.
def test_a_player_named_twice_among_the_tenpai_is_refused():
    msg = refused(E_TENPAI_TWICE, [Draw(("A", "A"))])
    assert "A is named twice" in msg


def test_a_negative_value_is_said_in_the_users_words():
    msg = refused(E_BAD_VALUE, [Tsumo("B", Value(han=-3, fu=30))])
    assert msg.endswith("B's han must be a whole number ≥ 0, got -3") and "Value(" not in msg


# Line 38: « Les joueurs noten payent aux joueurs tenpai une pénalité d'un montant total de 3000
# points »: the line names who pays and who receives
@pytest.mark.parametrize("tenpai, line", [
    (("B", "C", "D"), "A (noten) pays 3000; B, C, D (tenpai) receive 1000 each"),
    (("B", "D"), "A, C (noten) pay 1500 each; B, D (tenpai) receive 1500 each"),
    (("C",), "A, B, D (noten) pay 1000 each; C (tenpai) receives 3000"),
])
def test_a_draw_line_names_who_pays_and_who_receives(tenpai, line):
    assert at([Draw(tenpai)]).lines[0] == line


# Line 36: « Chaque compteur rapporte un bonus de 300 points en cas de victoire (100 point par
# joueur si le gagnant pioche sa tuile) »: a tsumo's lines say the counters' part, as a ron's do
def test_a_tsumo_line_shows_the_counters():
    s = at([Draw(("A",)), Draw(("A",)), Tsumo("B", Value(han=1, fu=30))])
    # base 240: the dealer A 500 + 200, C and D 300 + 200
    assert s.lines[:3] == ("A pays B 700 (200 of it counters)", "C pays B 500 (200 of it counters)",
                           "D pays B 500 (200 of it counters)")
