"""hand_waits from Python: mpsz text is taken where tiles are asked for, and anything else is
refused by a HandError that names what to pass (never an AttributeError deep inside)."""
import pytest

from scoring.hand import HandError, Meld
from scoring.tiles import parse_tiles
from scoring.waits import hand_waits


def test_mpsz_text_gives_the_same_report_as_tiles():
    # the bundled riichi_waiting.jpg hand: 234m 067p 44 567s 22z waits on 4s (shanpon with
    # 2z) and 2z; one 4s and one 2z are held twice each, so two copies of each are left
    as_text = hand_waits("234m067p44567s22z", (), {"seat_wind": "S", "dora_indicators": "3s"})
    as_tiles = hand_waits(parse_tiles("234m067p44567s22z"), (),
                          {"seat_wind": "S", "dora_indicators": parse_tiles("3s")})
    assert as_text.to_json() == as_tiles.to_json()
    assert [(w["tile"], w["left"]) for w in as_text.to_json()["waits"]] == [("4s", 2), ("2z", 2)]


def test_discards_as_text_make_furiten():
    # 23m waits on 1m-4m; the player's own discard 1m makes the hand furiten (no ron)
    report = hand_waits("23m406p678s88s", (Meld("pon", "777z"),), {"seat_wind": "S"}, discards="1m")
    assert [w["tile"] for w in report.to_json()["waits"]] == ["1m", "4m"]
    assert report.furiten


@pytest.mark.parametrize("kwargs, words", [
    ({"melds": "777z"}, "melds must be a sequence of scoring.hand.Meld"),
    ({"context": {"seat": "S"}}, "unknown key 'seat'"),
    ({"context": "S"}, "context must be a dict"),
    ({"context": {"win": "ron"}}, "is the hand or the win"),
])
def test_wrong_arguments_are_named(kwargs, words):
    with pytest.raises(HandError, match=words):
        hand_waits("234m067p44567s22z", **kwargs)


def test_concealed_must_be_tiles():
    with pytest.raises(HandError, match="concealed must be tiles"):
        hand_waits(5)
