"""Levels: the request type, the one resolver, the shipped tables, and every front end asking
the resolver for the same levels (a conformance suite over games and front ends)."""

from __future__ import annotations

import ast
import io
import math
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import sparring
from sparring.cli.basic import adaptive_settings, opponent_settings
from sparring.cli.levels import build_table
from sparring.engines.common import level_lines, strength_settings
from sparring.engines.gtp import GTPEngine
from sparring.engines.uci import ELO_MAX, ELO_MIN, EngineOptions, UCIEngine
from sparring.errors import BadValueError, IncompatiblePlayerError, SparringError
from sparring.games import get_game
from sparring.levels import (
    ADAPTIVE_MODES,
    TABLE_GAMES,
    Level,
    describe,
    level_table,
    normal_rank,
    rank_words,
    resolve,
)
from sparring.players.human_like import HumanMCTSSettings, SAMCTSSettings
from sparring.players.settings import AlphaZeroSettings, DSASettings, SASettings
from sparring.service.catalog import build_catalog, opponent_for
from sparring.service.routes.games import _level_of
from sparring.service.schemas import (
    AdaptiveOpponent,
    DefaultOpponent,
    EloOpponent,
    StrongestOpponent,
)

SRC = Path(sparring.__file__).resolve().parent


# ---- the request ---------------------------------------------------------------------------------
def test_level_text_is_parsed_exactly() -> None:
    assert Level.parse("1500") == Level("elo", elo=1500.0)
    assert Level.parse(" Elo 1712.5 ") == Level("elo", elo=1712.5)
    assert Level.parse("elo=900") == Level.at_elo(900)
    assert Level.parse("5 kyu") == Level("rank", rank="5k")
    assert Level.parse("3D") == Level("rank", rank="3d")
    assert Level.parse("strongest") == Level("strongest")
    assert Level.parse("adaptive") == Level("adaptive", mode="bayes")
    assert Level.parse("adaptive:intra") == Level("adaptive", mode="intra")
    assert [normal_rank(t) for t in ("12 kyu", "1 dan", "25k")] == ["12k", "1d", "25k"]
    for level in (Level.at_elo(1500), Level.at_rank("5k"), Level.strongest(), Level.adaptive()):
        assert Level.parse(level.text()) == level
    for bad in ("", "very strong", "0k", "1-2k", "adaptive:wild", "elo nan"):
        with pytest.raises(BadValueError):
            Level.parse(bad)
    for kwargs in ({"kind": "elo"}, {"kind": "rank", "elo": 3.0}, {"kind": "fast"},
                   {"kind": "elo", "elo": math.inf}, {"kind": "elo", "elo": 1.0, "simulations": 4},
                   {"kind": "strongest", "simulations": 0}):  # fmt: skip
        with pytest.raises(BadValueError):
            Level(**kwargs)


# ---- the resolver --------------------------------------------------------------------------------
def test_connect4_levels_resolve_to_the_calibrated_search() -> None:
    settings, report = resolve("connect4", Level.at_elo(1500))
    assert settings == SASettings(elo=1500.0)
    assert report.label == "Elo 1500 (the Connect Four baseline ladder)"
    assert report.elo == 1500.0 and report.notice is None and report.measured
    low, high = level_table("connect4").elo_range or (0.0, 0.0)
    settings, report = resolve("connect4", Level.at_elo(99999))
    assert settings == SASettings(elo=float(math.floor(high)))  # clamped to a whole Elo
    top = math.floor(high)  # the whole Elo numbers inside the measured range
    assert report.elo == top and report.notice == (  # ... and the report says so
        f"Elo 99999 is outside the measured range {math.ceil(low)}..{top} of the Connect Four "
        f"baseline ladder; playing the strongest level, {top}"
    )
    assert resolve("connect4", None)[0] == AlphaZeroSettings()  # the default AI
    assert resolve("connect4", Level.adaptive("intra"))[0] == DSASettings(mode="intra")
    assert resolve("connect4", Level.adaptive())[1].adaptive_key == "dsa"
    assert describe("connect4", SASettings(elo=1500.0)) is not None
    assert describe("connect4", SASettings(elo=1234.5)) is None  # never resolved


def test_chess_go_and_go9_levels() -> None:
    assert resolve("chess", Level.at_elo(1400))[0] == HumanMCTSSettings(sf_elo=1400.0)
    assert resolve("go", Level.at_elo(800))[0] == SAMCTSSettings(gnugo_elo=800.0)
    settings, report = resolve("go9", Level.at_elo(1000))
    assert settings.spec() == "az:model=go9,sims=3200,finish=yes"  # the nearest measured row
    assert report.elo == 1070.0 and report.notice == (
        "Elo 1000 is not a measured go9 level; playing the nearest, 1070"
    )
    strongest, report = resolve("chess", Level.strongest())
    assert report.elo == 1991.6 and "movetime" not in strongest.spec()  # work, not seconds
    assert resolve("go", None)[0] == resolve("go", Level.strongest())[0]
    custom, report = resolve("go", Level.strongest(simulations=4))
    assert custom.spec() == "human-mcts:rank=9d,sims=4,model=go-play" and not report.measured
    assert resolve("go9", Level.strongest(simulations=8))[0] == AlphaZeroSettings(
        simulations=8, finish=True
    )
    # Go 19x19 ranks: the shipped handicap ladder, 20k (weakest) to 9k (its top rung)
    settings, report = resolve("go", Level.parse("12 kyu"))
    assert settings.spec() == "human-mcts:rank=6d,sims=1,model=go-play,temp=0.7132"
    assert report.label == "12 kyu (the handicap ladder anchored on GNU Go 3.8)"
    assert report.elo is None and rank_words("3d") == "3 dan"
    assert resolve("go", Level.at_rank("9k"))[0].spec().startswith("human-mcts:rank=9d,sims=1,")
    ranks = [r.rank for r in level_table("go").ranks]
    assert ranks == [f"{n}k" for n in range(20, 8, -1)]
    refused: list[tuple[str, Level, type[SparringError], str]] = [
        ("go", Level.at_rank("5k"), BadValueError, "the measured ranks are 20k to 9k"),
        ("go", Level.at_rank("25k"), BadValueError, "the measured ranks are 20k to 9k"),
        ("go9", Level.at_rank("5k"), IncompatiblePlayerError, "go9 has no measured rank ladder"),
        ("chess", Level.at_rank("3d"), IncompatiblePlayerError, "an Elo from 842"),
        ("go", Level.adaptive(), IncompatiblePlayerError, "no adaptive opponent"),
        ("go13", Level.at_elo(900), IncompatiblePlayerError, "only its default AI"),
        ("chess", Level("elo", elo=1500.0, style="human-like"), IncompatiblePlayerError, "style"),
    ]
    for game, level, error, message in refused:
        with pytest.raises(error, match=message):
            resolve(game, level)


def test_shipped_tables_are_built_from_the_shipped_files() -> None:
    """Every shipped table holds what ``sparring levels-build`` makes of the shipped
    calibration and scale files (seconds a move aside: they are timed)."""
    for game in TABLE_GAMES:
        shipped, built = level_table(game).to_json(), build_table(game).to_json()
        for data in (shipped, built):
            data.pop("command"), data.pop("reference"), data.pop("notes")
            for row in [*data["rows"], *data["ranks"], data["strongest"]]:
                if row is not None:
                    row.pop("seconds")
        assert shipped == built, game
        table = level_table(game)
        elos = [r.elo for r in table.rows]
        assert elos == sorted(elos) and len(set(elos)) == len(elos), game  # monotone levels


# ---- every front end asks the resolver -----------------------------------------------------------
def _asked(game: str) -> list[float]:
    """Elos to ask in ``game``: every measured level, one between two, and one beyond each end."""
    table = level_table(game)
    elos = [r.elo for r in table.rows if r.elo is not None]
    return [elos[0] - 300, *elos, (elos[0] + elos[1]) / 2, elos[-1] + 300]


def _gtp(game: str, strength: tuple[str, str] | None, simulations: int | None = None) -> Any:
    me = SimpleNamespace(style="measured", simulations=simulations)
    return GTPEngine._settings_for(me, get_game(game), strength)  # type: ignore[arg-type]


def _uci(elo: int | None, simulations: int = 0) -> Any:
    options = EngineOptions(
        limit_strength=elo is not None, elo=elo or 1500, simulations=simulations
    )
    return UCIEngine._settings(SimpleNamespace(game=get_game("chess")), options)  # type: ignore[arg-type]


@pytest.mark.parametrize("game", TABLE_GAMES)
def test_every_front_end_builds_the_same_settings(game: str) -> None:
    info = build_catalog()[game]
    for elo in _asked(game):
        expected = resolve(game, Level.at_elo(elo))[0]
        built = {
            "api": sparring.resolve(get_game(game), sparring.Level.at_elo(elo))[0],
            "play --elo": opponent_settings(game, None, elo)[0],
            "play --level": opponent_settings(game, None, None, level=f"elo {elo}")[0],
            "service": opponent_for(info, _level_of(EloOpponent(mode="elo", elo=elo)))[0],
        }
        if game.startswith("go"):
            built["gtp --elo"] = _gtp(game, ("elo", repr(elo)))
            built["gtp protocol"] = strength_settings(get_game(game), elo=elo)
        if game == "chess" and ELO_MIN <= round(elo) <= ELO_MAX and elo == round(elo):
            built["uci UCI_Elo"] = _uci(round(elo))
        assert {k: v for k, v in built.items() if v != expected} == {}, (game, elo)
    default = resolve(game, None)[0]
    fronts = {
        "play": opponent_settings(game, None, None)[0],
        "service": opponent_for(info, _level_of(DefaultOpponent(mode="default")))[0],
    }
    if game.startswith("go"):
        fronts["gtp"] = _gtp(game, None)
    if game == "chess":
        fronts["uci"] = _uci(None)
    assert {k: v for k, v in fronts.items() if v != default} == {}, game
    strongest = resolve(game, Level.strongest())[0]
    assert opponent_for(info, _level_of(StrongestOpponent(mode="strongest")))[0] == strongest
    assert opponent_settings(game, None, None, level="strongest")[0] == strongest
    if game.startswith("go"):
        assert _gtp(game, None, 8) == resolve(game, Level.strongest(simulations=8))[0]
    for mode in info.adaptive:
        wanted = resolve(game, Level.adaptive(mode))[0]
        assert opponent_for(info, _level_of(AdaptiveOpponent(mode="adaptive", kind=mode)))[0] == (
            wanted
        )
        if mode == "bayes":
            assert adaptive_settings(game, None) == wanted
    assert sorted(info.adaptive) == (sorted(ADAPTIVE_MODES) if info.adaptive else [])


def test_the_catalog_and_uci_offer_the_tables_levels() -> None:
    catalog = {name: info.to_json() for name, info in build_catalog().items()}
    for game in TABLE_GAMES:
        table = level_table(game)
        elo = catalog[game]["levels"]["elo"]
        assert table.elo_range is not None
        assert (elo["min"], elo["max"]) == tuple(round(e, 1) for e in table.elo_range)
        assert [r["elo"] for r in elo["levels"]] == [r.elo for r in table.rows]
        assert elo["scale"] == table.scale and elo["anchor"] == table.anchor
    low, high = level_table("chess").elo_range or (0.0, 0.0)
    assert (math.ceil(low), math.floor(high)) == (ELO_MIN, ELO_MAX)


def test_engines_say_the_level_they_play() -> None:
    out = io.StringIO()
    engine = GTPEngine(out, game=get_game("go9"), strength=("elo", "700"), seed=1)
    assert engine.seat.settings.spec() == "az:model=go9,sims=800,finish=yes"


def test_the_engines_guide_quotes_the_work_the_engines_say() -> None:
    """docs/guide/engines.md's examples of an Elo's work a move are the engines' own lines for
    the shipped scales (they change when a scale is refitted)."""
    guide = (SRC.parent.parent / "docs" / "guide" / "engines.md").read_text()
    quoted = re.findall(r"at (chess|Go) Elo (\d+):\s*`(its work a move: [^`]+)`", guide)
    assert [(name, elo) for name, elo, _ in quoted] == [("chess", "1800"), ("Go", "950")]
    for name, elo, line in quoted:
        game = get_game(name.lower())
        assert line in level_lines(strength_settings(game, elo=float(elo)), game), name


# ---- nothing else maps a level to settings -------------------------------------------------------
LEVEL_KEYS = {"elo", "sf_elo", "gnugo_elo", "rank"}
"""Settings keywords that carry a strength asked for."""
LEVEL_FUNCTIONS = {"at_elo", "elo_band", "strongest_chess", "default_ai"}
"""Functions that turn a strength into settings (``Level.at_elo`` builds a request, and
:func:`sparring.levels.with_elo` is the resolver's own: allowed)."""
ALLOWED = {
    "levels.py": "the resolver",
    "cli/levels.py": "writes the level tables from the shipped files",
    "players/human_like.py": "the human-like kinds' own spec parsers and definitions",
    "players/settings.py": "the settings' own definitions and JSON parsing",
    "players/external.py": "the Stockfish player's own UCI_Elo option (a spec key)",
    "experiments/adapt/specs.py": "research players on an explicit calibration file",
}
"""Modules that may name those (each with why): settings definitions and parsers, not
level policy."""


def level_mappings(source: str) -> list[int]:
    """Lines of ``source`` that map an Elo or a rank to settings: a ``...Settings(...)`` call
    with one of :data:`LEVEL_KEYS`, or a call of :data:`LEVEL_FUNCTIONS` (but
    ``Level.at_elo``, the request)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name is None:
            continue
        if name.endswith("Settings") and any(k.arg in LEVEL_KEYS for k in node.keywords):
            lines.append(node.lineno)
        elif name in LEVEL_FUNCTIONS:
            owner = func.value if isinstance(func, ast.Attribute) else None
            if not (isinstance(owner, ast.Name) and owner.id == "Level"):
                lines.append(node.lineno)
    return lines


def test_level_mappings_are_found() -> None:
    """The reader finds what it must (and not a request)."""
    source = (
        "a = SASettings(elo=1)\nb = HumanMCTSSettings(sf_elo=2)\nc = x.at_elo(3)\n"
        "d = Level.at_elo(4)\ne = UCTSettings(sims=5)\nf = default_ai('go')\n"
    )
    assert level_mappings(source) == [1, 2, 3, 6]


def test_no_module_but_the_resolver_maps_a_level_to_settings() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel in ALLOWED:
            continue
        found += [f"{rel}:{line}" for line in level_mappings(path.read_text())]
    assert not found, "map levels with sparring.levels.resolve, not here: " + ", ".join(found)


def test_the_guide_and_the_readme_show_the_shipped_tables() -> None:
    """docs/guide/levels.md's tables and README's summary are the shipped tables' Markdown
    (written by scripts/levels_doc.py, not typed)."""
    import importlib.util

    path = SRC.parent.parent / "scripts" / "levels_doc.py"
    spec = importlib.util.spec_from_file_location("levels_doc", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for doc in module.DOCS:
        text = doc.read_text()
        assert module.render(text) == text, f"{doc}: run scripts/levels_doc.py"
    guide = module.DOC.read_text()
    for game in TABLE_GAMES:
        assert f"<!-- levels:{game} -->" in guide
    assert "<!-- levels:summary -->" in (SRC.parent.parent / "README.md").read_text()


def test_a_level_is_a_player_spec_for_matches() -> None:
    """``level:at=LEVEL`` builds the resolver's player for the game it is built for."""
    from sparring.levels import LevelSettings
    from sparring.players.registry import build_player, parse_player

    assert parse_player("level:at=1500") == LevelSettings("1500")
    assert parse_player("level") == LevelSettings("strongest")
    game = get_game("connect4")
    player = build_player(parse_player("level:at=1500"), game, 1)
    same = build_player(resolve(game, Level.at_elo(1500))[0], game, 1)
    assert (type(player), player.name) == (type(same), same.name)
    for bad in ("level:at=very strong", "level:at=1500,speed=2"):
        with pytest.raises(SparringError):
            parse_player(bad)
    with pytest.raises(IncompatiblePlayerError, match="no measured rank ladder"):
        build_player(parse_player("level:at=5k"), get_game("go9"), 1)
