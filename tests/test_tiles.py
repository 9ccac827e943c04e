"""mpsz notation, tile values and physical-set checks (scoring/tiles.py).

Source for the notation: the riichi community's mpsz convention as used by Tenhou and the
``mahjong`` package (0 = red five, 1z..7z = East South West North White Green Red).
"""
import pytest

from scoring.tiles import (Tile, TileError, check_physical, counts34, dora_from_indicator,
                           kind_of, parse_tile, parse_tiles, to_mpsz, to_unicode, wind_index)


def test_parse_groups_in_any_order_and_red_fives():
    tiles = parse_tiles("55z123m0p")
    assert [str(t) for t in tiles] == ["5z", "5z", "1m", "2m", "3m", "0p"]
    assert tiles[-1] == Tile(13, red=True)
    assert tiles[-1].kind == kind_of("5p")


def test_honour_and_flower_kinds():
    assert [t.name for t in parse_tiles("1234567z")] == [
        "East", "South", "West", "North", "White", "Green", "Red"]
    assert parse_tile("1f").name == "Plum" and parse_tile("8f").name == "Winter"


def test_suit_tile_names_say_one_character_and_two_characters():
    assert [t.name for t in parse_tiles("12m1p9p1s0p")] == [
        "1 character", "2 characters", "1 dot", "9 dots", "1 bamboo", "5 dots (red)"]


@pytest.mark.parametrize("bad", ["8z", "0z", "9f", "12", "m", "1x", "5q5m"])
def test_bad_codes_are_named(bad):
    with pytest.raises(TileError):
        parse_tiles(bad)


@pytest.mark.parametrize("bad", ["\u00b234m", "\uff12\uff13m", "\u0662m"])
def test_digits_of_other_scripts_are_unknown_codes(bad):
    # '²', fullwidth '２３', Arabic-Indic '٢': str.isdigit takes them; int('²') then raised a
    # ValueError (a 500 from the API) and fullwidth digits were read as tiles without a word
    with pytest.raises(TileError, match="unknown tile code"):
        parse_tiles(bad)


def test_print_sorted_and_unsorted():
    tiles = parse_tiles("9s0m1z5m1m")
    assert to_mpsz(tiles) == "105m9s1z"
    assert to_mpsz(tiles, sort=False) == "9s0m1z51m"


def test_unicode_glyphs():
    # U+1F007 is one of characters, U+1F004 the red dragon, U+1F000 East
    assert to_unicode(parse_tiles("1m7z1z")) == "\U0001F007\U0001F004\U0001F000"


def test_counts_treat_red_as_five():
    c = counts34(parse_tiles("055m"))
    assert c[4] == 3 and sum(c) == 3


def test_physical_limits():
    check_physical(parse_tiles("0555m"))
    with pytest.raises(TileError, match="copies"):
        check_physical(parse_tiles("05555m"))      # a red five counts as its five
    with pytest.raises(TileError, match="red fives"):
        check_physical(parse_tiles("00m"))


@pytest.mark.parametrize("indicator,dora", [("9m", "1m"), ("4z", "1z"), ("7z", "5z"), ("0p", "6p"), ("3z", "4z")])
def test_dora_wraps(indicator, dora):
    # seed rules: the tile after the indicator; 9 -> 1, North -> East, Red -> White
    assert dora_from_indicator(kind_of(indicator)) == kind_of(dora)


def test_wind_index():
    assert wind_index("N") == 3
    with pytest.raises(TileError):
        wind_index("X")


def test_a_long_bad_string_is_quoted_short_in_the_error():
    # a chat bot relays errors: 1000 characters of input must not come back whole
    with pytest.raises(TileError) as exc:
        parse_tiles("1" * 1000 + "x")
    assert "unknown tile code 'x'" in str(exc.value) and "(1001 characters)" in str(exc.value)
    assert len(str(exc.value)) < 120
