"""The Stockfish strength scale: the monotone fit, the inverse (the knob
value for an asked Elo, rounded for sims, clamped at the ends), the file, ``sf_elo=E`` on
``human-mcts`` and ``sa-mcts``, and ``sparring scale-fit``."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

import sparring.kinds  # noqa: F401  (registers the player kinds)
from sparring.errors import (
    ConfigError,
    IncompatiblePlayerError,
    PlayerResourceError,
    UnknownPlayerError,
)
from sparring.experiments.external_scale import fit_scale, search_options
from sparring.games import get_game
from sparring.players import make_player
from sparring.players.cache import PlayerCache
from sparring.players.external import find_program
from sparring.players.external_scale import (
    ExternalScale,
    ScaleChoice,
    ScalePoint,
    default_scale,
    monotone_fit,
)
from sparring.players.human_like import HumanMCTSSettings, SAMCTSSettings
from sparring.players.human_mcts import on_scale
from sparring.players.registry import parse_player, settings_from_json

SEARCH = {"cpuct": 0.25, "sf_nodes": 1000, "sweep": True}


def _scale(*points: tuple[float, float], knob: str = "z", pm: float = 100.0) -> ExternalScale:
    return ExternalScale(
        "chess", "test", knob, SEARCH, tuple(ScalePoint(v, e, pm, 20, 10.0) for v, e in points)
    )


def test_monotone_fit_pools_adjacent_violators_by_hand() -> None:
    assert monotone_fit([1500, 1400, 1600], [1, 1, 2]) == [1450, 1450, 1600]
    # 1500 (w 1) and 1400 (w 3) pool to 5700 / 4 = 1425; 1600 and 1550 (w 1 each) to 1575
    assert monotone_fit([1500, 1400, 1600, 1550], [1, 3, 1, 1]) == [1425, 1425, 1575, 1575]
    # a later violation reaches back over a pooled block: 1500, 1400 -> 1450 (w 2); then 1200
    # pools with it: (2900 + 1200) / 3
    assert monotone_fit([1500, 1400, 1200], [1, 1, 1]) == pytest.approx([4100 / 3] * 3)
    assert monotone_fit([1, 2, 3], [1, 1, 1]) == [1, 2, 3]
    with pytest.raises(ValueError):
        monotone_fit([1, 2], [1, 0])


def test_choose_interpolates_and_clamps() -> None:
    scale = _scale((-1, 1400), (0, 1600), (2, 1800))
    assert scale.choose(1500) == ScaleChoice(-0.5, 1500, False)
    assert scale.choose(1700) == ScaleChoice(1.0, 1700, False)
    assert scale.choose(1400) == ScaleChoice(-1, 1400, False)
    assert scale.choose(1300) == ScaleChoice(-1, 1400, True)
    assert scale.choose(1900) == ScaleChoice(2, 1800, True)
    assert scale.elo_range == (1400, 1800)
    with pytest.raises(ValueError):
        scale.choose(math.nan)


def test_choose_rounds_sims_and_plays_the_elo_of_the_whole_number() -> None:
    scale = _scale((2, 1000), (4, 1300), (8, 1500), knob="sims")
    # 1200 -> 2 + 2 * 200 / 300 = 3.33 -> 3 simulations, whose Elo is 1000 + 300 / 2 = 1150
    assert scale.choose(1200) == ScaleChoice(3.0, 1150, False)
    # 1450 -> 4 + 4 * 150 / 200 = 7 exactly
    assert scale.choose(1450) == ScaleChoice(7.0, 1450, False)
    # 1360 -> 4 + 4 * 60 / 200 = 5.2 -> 5: 1300 + 200 / 4 = 1350
    assert scale.choose(1360) == ScaleChoice(5.0, 1350, False)
    assert scale.choose(900) == ScaleChoice(2, 1000, True)
    assert (scale.elo_at(6), scale.elo_at(1), scale.elo_at(20)) == (1400, 1000, 1500)


def test_choose_inverts_the_monotone_fit_and_takes_the_lowest_value_of_a_flat_run() -> None:
    # 1500 > 1400 violates: both become 1450, a flat run from z = -1 to 0
    scale = _scale((-1, 1500), (0, 1400), (1, 1700))
    assert scale.fitted() == [1450, 1450, 1700]
    # above the run: on the rising stretch 0 -> 1, 0 + 125 / 250 (not inside the run,
    # where the curve is 1450: the first rule gave -1 + 2 * 125 / 250 = 0.0)
    assert scale.choose(1575) == ScaleChoice(0.5, 1575, False)
    assert scale.elo_at(0.5) == 1575
    assert scale.choose(1450) == ScaleChoice(-1, 1450, False)  # the run's first value
    # sims: a flat run 24-40 at 1560 then 1755 at 48 (the first shipped fit, rounded):
    sims = _scale((16, 1418), (24, 1560), (40, 1560), (48, 1755), knob="sims")
    # 1600 -> 40 + 8 * 40 / 195 = 41.64 -> 42, whose Elo is 1560 + 2 * 195 / 8 = 1608.75
    assert sims.choose(1600) == ScaleChoice(42.0, 1608.75, False)
    assert sims.choose(1560) == ScaleChoice(24.0, 1560, False)
    assert sims.choose(1800) == ScaleChoice(48, 1755, True)


def test_scale_rejects_bad_points() -> None:
    with pytest.raises(ValueError, match="finite"):
        _scale((0, 1500), (math.inf, 1800))
    with pytest.raises(ValueError, match="increasing"):
        _scale((1, 1500), (0, 1400))
    with pytest.raises(ValueError, match="whole numbers"):
        _scale((1.5, 1500), knob="sims")
    with pytest.raises(ValueError, match="whole numbers"):
        _scale((0, 1500), knob="sims")
    with pytest.raises(ValueError, match="knob is one of"):
        _scale((0, 1500), knob="depth")
    with pytest.raises(ValueError, match="at least one"):
        ExternalScale("chess", "t", "z", SEARCH, ())
    with pytest.raises(ValueError, match="unknown search"):
        ExternalScale("chess", "t", "z", {"depth": 3}, (ScalePoint(0, 1500, 50, 2, 1),))
    with pytest.raises(ValueError, match="unknown search"):  # the knob is not a search option
        ExternalScale("chess", "t", "sims", {"sims": 3}, (ScalePoint(1, 1500, 50, 2, 1),))


def test_scale_file_round_trip_and_bad_files(tmp_path: Path) -> None:
    scale = _scale((1, 1400), (3, 1600), knob="sims")
    path = tmp_path / "s.json"
    path.write_text(scale.to_json())
    assert ExternalScale.read(path) == scale
    for change, message in [
        (lambda d: d.update(extra=1), "unknown keys"),
        (lambda d: d["search"].update(sf_nodes="100"), "integer"),
        (lambda d: d["search"].update(sweep=1), "true or false"),
        (lambda d: d["points"][0].update(z=1), "unknown point keys"),
        (lambda d: d.pop("knob"), "knob"),
    ]:
        data = json.loads(scale.to_json())
        change(data)
        path.write_text(json.dumps(data))
        with pytest.raises(PlayerResourceError, match=message):
            ExternalScale.read(path)
    with pytest.raises(PlayerResourceError, match="not found"):
        ExternalScale.read(tmp_path / "none.json")


def test_sf_elo_spec_and_json() -> None:
    for text, name in [
        ("human-mcts:sf_elo=1600.5,scale=/x/s.json", "MCTS(Stockfish 1600.5)"),
        ("sa-mcts:sf_elo=1600.5,scale=/x/s.json", "SA-MCTS(Stockfish 1600.5)"),
        ("sa-mcts:gnugo_elo=900.5,scale=/x/s.json", "SA-MCTS(GNU Go 900.5)"),
    ]:
        settings = parse_player(text)
        assert settings.spec() == text
        assert parse_player(text) == settings
        assert settings_from_json(settings.to_json()) == settings
        assert settings.display_name() == name  # type: ignore[attr-defined]
    assert parse_player("human-mcts:sf_elo=1600").spec() == "human-mcts:sf_elo=1600"
    for text, key in [
        ("sa-mcts:sf_elo=1600,z=1", "sf_elo"),
        ("sa-mcts:sf_elo=1600,rank=3d", "sf_elo"),
        ("sa-mcts:z=1,scale=s.json", "scale"),
        ("human-mcts:scale=s.json", "scale"),
        ("human-mcts:sf_elo=inf", "sf_elo"),
        ("human-mcts:sf_elo=abc", "sf_elo"),
        ("se-inf-mcts:elo=1500,sf_elo=1500", "sf_elo"),
        ("sa-mcts:gnugo_elo=900,sf_elo=1600", "gnugo_elo"),
        ("sa-mcts:gnugo_elo=900,z=1", "gnugo_elo"),
        ("sa-mcts:gnugo_elo=nan", "gnugo_elo"),
    ]:
        with pytest.raises(UnknownPlayerError) as err:
            parse_player(text)
        assert err.value.key == key, text


def test_on_scale_takes_the_scale_search_and_knob(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(_scale((2, 1000), (4, 1300), (8, 1500), knob="sims").to_json())
    chess = get_game("chess")
    settings = parse_player(f"human-mcts:sf_elo=1450,scale={path}")
    assert isinstance(settings, HumanMCTSSettings)
    resolved, choice = on_scale(settings, chess)
    assert choice == ScaleChoice(7.0, 1450, False)
    assert (resolved.simulations, resolved.c_puct, resolved.sf_nodes, resolved.root_sweep) == (
        7, 0.25, 1000, True,
    )  # fmt: skip
    # a search option equal to the scale's is fine; another value, or sims, is refused
    same = parse_player(f"human-mcts:sf_elo=1450,scale={path},cpuct=0.25")
    assert isinstance(same, HumanMCTSSettings)
    assert on_scale(same, chess)[1] == choice
    for option, message in [("cpuct=1", "cpuct=0.25; drop cpuct=1"), ("sims=50", "drop sims=50")]:
        other = parse_player(f"human-mcts:sf_elo=1450,scale={path},{option}")
        assert isinstance(other, HumanMCTSSettings)
        with pytest.raises(IncompatiblePlayerError, match=message):
            on_scale(other, chess)
    with pytest.raises(IncompatiblePlayerError, match="for chess, not go"):
        on_scale(settings, get_game("go"))
    sa = parse_player(f"sa-mcts:sf_elo=1450,scale={path}")
    assert isinstance(sa, SAMCTSSettings)
    with pytest.raises(IncompatiblePlayerError, match="varies sims"):
        on_scale(sa, chess)


def _chain(*above: tuple[float, float]) -> ExternalScale:
    """sims 2/4/8 at 1000 leaf nodes (1000, 1300, 1500), then leaf nodes at 8 simulations."""
    deeper = ExternalScale(
        "chess", "test", "sf_nodes", {"cpuct": 0.25, "sweep": True, "sims": 8},
        tuple(ScalePoint(v, e, 100.0, 20, 10.0) for v, e in above),
    )  # fmt: skip
    lower = _scale((2, 1000), (4, 1300), (8, 1500), knob="sims")
    return ExternalScale(
        lower.game, lower.scale, lower.knob, lower.search, lower.points, above=deeper
    )


def test_a_chain_plays_above_the_lower_scales_top_on_the_scale_above() -> None:
    chain = _chain((1000, 1400), (2000, 1700), (4000, 1900))
    assert chain.elo_range == (1000, 1900) and chain.own_range == (1000, 1500)
    assert [s.knob for s in chain.segments()] == ["sims", "sf_nodes"]
    # up to the lower top (1500) on sims: 1450 -> 4 + 4 * 150 / 200 = 7
    segment, choice = chain.pick(1450)
    assert (segment.knob, choice) == ("sims", ScaleChoice(7.0, 1450, False))
    assert chain.pick(1500)[1] == ScaleChoice(8.0, 1500, False)
    # above it on sf_nodes: 1600 -> 1000 + 1000 * 200 / 300 = 1666.7 -> 1667 nodes, whose
    # Elo is 1400 + 300 * 667 / 1000 = 1600.1
    segment, choice = chain.pick(1600)
    assert segment.knob == "sf_nodes"
    assert choice == ScaleChoice(1667.0, pytest.approx(1600.1), False)
    assert chain.pick(2000)[1] == ScaleChoice(4000, 1900, True)  # the chain's top
    assert chain.pick(900)[1] == ScaleChoice(2, 1000, True)
    # a gap (lower top 1500, the scale above from 1600): the nearer end is played
    gap = _chain((1000, 1600), (2000, 1800))
    assert gap.pick(1540)[1] == ScaleChoice(8.0, 1500, False)
    assert gap.pick(1560)[1] == ScaleChoice(1000, 1600, False)


def test_a_chain_is_checked_and_round_trips(tmp_path: Path) -> None:
    chain = _chain((1000, 1400), (4000, 1900))
    path = tmp_path / "chain.json"
    path.write_text(chain.to_json())
    assert ExternalScale.read(path) == chain
    with pytest.raises(ValueError, match="tops out at 1450"):
        _chain((1000, 1400), (4000, 1450))
    with pytest.raises(ValueError, match="whole numbers"):
        _chain((1000.5, 1600))
    lower = _scale((2, 1000), knob="sims")
    for other, message in [
        (ExternalScale("go", "test", "z", {}, (ScalePoint(0, 1900, 50, 2, 1),)), "not chess"),
        (_scale((0, 1900)), "not a human-mcts knob"),
    ]:
        with pytest.raises(ValueError, match=message):
            ExternalScale("chess", "test", "sims", SEARCH, lower.points, above=other)


def test_a_moved_chain_keeps_its_shape_and_says_its_offset(tmp_path: Path) -> None:
    chain = _chain((1000, 1400), (4000, 1900))
    moved = chain.moved(-100.0, "test at 0.5 s", "move it")
    # every point of both scales 100 lower, the knob values and intervals kept
    assert [p.elo for s in moved.segments() for p in s.points] == [900, 1200, 1400, 1300, 1800]
    assert [s.offset for s in moved.segments()] == [-100.0, -100.0]
    assert [s.scale for s in moved.segments()] == ["test at 0.5 s"] * 2
    assert moved.command == "; then moved by: move it"
    assert moved.pick(1350)[1] == chain.pick(1450)[1]._replace(played=1350)
    # moving again replaces the offset (from the fit's own Elos) and the command's last step
    again = moved.moved(-50.0, "test", "again")
    assert [p.elo for p in again.points] == [950, 1250, 1450]
    assert again.command == "; then moved by: again" and again.offset == -50.0
    assert moved.moved(0.0, chain.scale, "").points == chain.points
    path = tmp_path / "moved.json"
    path.write_text(moved.to_json())
    assert json.loads(path.read_text())["offset"] == -100.0
    assert ExternalScale.read(path) == moved
    assert "offset" not in json.loads(chain.to_json())  # the fit's own file has none
    with pytest.raises(ValueError, match="offset must be finite"):
        chain.moved(math.inf, "x", "y")


def test_each_scale_of_a_chain_can_move_by_its_own_offset() -> None:
    chain = _chain((1000, 1400), (4000, 1900))
    moved = chain.moved([-50.0, -150.0], "each", "move each")
    assert [s.offset for s in moved.segments()] == [-50.0, -150.0]
    assert [p.elo for s in moved.segments() for p in s.points] == [950, 1250, 1450, 1250, 1750]
    # back to one offset: each scale from its own fit
    assert moved.moved(0.0, chain.scale, "").points == chain.points
    assert moved.moved(0.0, chain.scale, "").above.points == chain.above.points  # type: ignore[union-attr]
    # a sequence of one is one offset for the whole chain (a level run's DIR@OFFSET)
    assert chain.moved([-50.0], "one", "").segments() == chain.moved(-50.0, "one", "").segments()
    with pytest.raises(ValueError, match="3 offsets for a chain of 2 scales"):
        chain.moved([0.0, 1.0, 2.0], "x", "y")
    with pytest.raises(ValueError, match="offset must be finite"):
        chain.moved([0.0, math.nan], "x", "y")


def test_on_scale_sets_the_leaf_nodes_above_the_lower_scale(tmp_path: Path) -> None:
    path = tmp_path / "chain.json"
    path.write_text(_chain((1000, 1400), (2000, 1700), (4000, 1900)).to_json())
    chess = get_game("chess")
    settings = parse_player(f"human-mcts:sf_elo=1600,scale={path}")
    assert isinstance(settings, HumanMCTSSettings)
    resolved, choice = on_scale(settings, chess)
    assert choice.value == 1667
    assert (resolved.simulations, resolved.sf_nodes, resolved.c_puct, resolved.root_sweep) == (
        8, 1667, 0.25, True,
    )  # fmt: skip
    low = parse_player(f"human-mcts:sf_elo=1450,scale={path}")
    assert isinstance(low, HumanMCTSSettings)
    assert (on_scale(low, chess)[0].simulations, on_scale(low, chess)[0].sf_nodes) == (7, 1000)
    pinned = parse_player(f"human-mcts:sf_elo=1600,scale={path},sf_nodes=3000")
    assert isinstance(pinned, HumanMCTSSettings)
    with pytest.raises(IncompatiblePlayerError, match="chooses the leaf's nodes; drop sf_nodes"):
        on_scale(pinned, chess)


def test_sa_mcts_on_a_z_scale(tmp_path: Path) -> None:
    path = tmp_path / "z.json"
    path.write_text(_scale((-1, 1400), (0, 1600)).to_json())
    sa = parse_player(f"sa-mcts:sf_elo=1500,scale={path}")
    assert isinstance(sa, SAMCTSSettings)
    resolved, choice = on_scale(sa, get_game("chess"))
    assert choice == ScaleChoice(-0.5, 1500, False)
    assert resolved.simulations == 100 and resolved.sf_nodes == 1000 and resolved.root_sweep


def test_each_game_has_its_scale_option_and_a_missing_scale_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sparring.players import external_scale

    settings = parse_player("human-mcts:sf_elo=1700")
    assert isinstance(settings, HumanMCTSSettings)
    with pytest.raises(IncompatiblePlayerError, match="Stockfish's scale, for chess, not go"):
        on_scale(settings, get_game("go"))
    go_elo = parse_player("sa-mcts:gnugo_elo=900")
    assert isinstance(go_elo, SAMCTSSettings)
    with pytest.raises(IncompatiblePlayerError, match="GNU Go's scale, for go, not chess"):
        on_scale(go_elo, get_game("chess"))
    assert default_scale("go").name == "go-gnugo-scale.json"
    monkeypatch.setitem(external_scale.SCALE_FILES, "go", "no-such-scale.json")
    with pytest.raises(IncompatiblePlayerError, match="no GNU Go scale is shipped for go"):
        on_scale(go_elo, get_game("go"))


def test_the_shipped_go_scale_names_its_network_by_its_current_name() -> None:
    """The shipped GNU Go scale's network is a shipped file under its current name (not a
    former, deprecated one)."""
    import warnings

    from sparring.nn.estimators import resolve_estimator, shipped_estimators

    scale = ExternalScale.read(default_scale("go"))
    assert scale.search["model"] == "go-play-early"
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        assert resolve_estimator(scale.search["model"]) == shipped_estimators()["go-play-early"]


def test_a_go_scale_fixes_the_play_network_and_its_rank(tmp_path: Path) -> None:
    """Go's GNU Go scale varies z over a play network at a rank: ``gnugo_elo`` takes the
    network, the rank and the simulations from the file and plays the interpolated z."""
    from tests.tiny_networks import tiny_go_network

    _, play = tiny_go_network(tmp_path, "play")
    search = {"sims": 4, "cpuct": 1.5, "sf_nodes": 0, "sweep": False, "model": str(play),
              "rank": "9d"}  # fmt: skip
    points = (ScalePoint(0, 700, 100, 40, 5), ScalePoint(1, 900, 100, 40, 14))
    scale = ExternalScale("go", "GNU Go 3.8 level 1 = 1000", "z", search, points)
    path = tmp_path / "go-scale.json"
    path.write_text(scale.to_json())
    assert ExternalScale.read(path) == scale
    go = get_game("go")
    settings = parse_player(f"sa-mcts:gnugo_elo=850,scale={path}")
    assert isinstance(settings, SAMCTSSettings)
    resolved, choice = on_scale(settings, go)
    assert choice == ScaleChoice(0.75, 850, False)
    assert (resolved.model, resolved.rank, resolved.simulations) == (str(play), "9d", 4)
    player = make_player(settings.spec(), go, seed=2, cache=PlayerCache())
    assert player.setting.z == 0.75  # type: ignore[attr-defined]
    analysis = player.play(go, go.initial_state()).analysis
    assert analysis is not None and analysis.strength is not None
    assert (analysis.strength.elo_asked, analysis.strength.clamped) == (850, False)
    low = make_player(f"sa-mcts:gnugo_elo=500,scale={path}", go, seed=2, cache=PlayerCache())
    analysis = low.play(go, go.initial_state()).analysis
    assert analysis is not None
    assert analysis.notices == ("Elo 500 is outside the measured GNU Go scale; playing 700",)
    with pytest.raises(UnknownPlayerError, match="not rank and gnugo_elo"):
        parse_player(f"sa-mcts:gnugo_elo=850,scale={path},rank=1d")  # a z-table rank
    other = parse_player(f"sa-mcts:gnugo_elo=850,scale={path},model={play},rank=1d")
    assert isinstance(other, SAMCTSSettings)
    with pytest.raises(IncompatiblePlayerError, match="rank=9d; drop rank=1d"):
        on_scale(other, go)
    # scale-fit's side: the seed-1 series' players (a display name allowed) are its points
    z_search = search_options("z", f"model={play},rank=9d,sims=4")
    assert z_search == {**search, "cpuct": z_search["cpuct"]}
    spec = f"sa-mcts:model={play},rank=9d,sims=4,z={{}},name=SAz{{}}"
    gnugo = "gnugo:level=1"
    games = [(spec.format(z, z), gnugo, float(i < k)) for z, k in ((0, 5), (1, 20))
             for i in range(40)]  # fmt: skip
    fitted, others = fit_scale(games, {gnugo: 1000.0}, "go", "z", z_search, "GNU Go")
    assert [p.value for p in fitted.points] == [0.0, 1.0] and not others
    assert fitted.points[1].elo == pytest.approx(1000, abs=1)


def test_fit_scale_from_games() -> None:
    k = "human-mcts:sims={},sf_nodes=1000,cpuct=0.25,sweep=true"
    sf16, sf20 = "stockfish:elo=1600", "stockfish:elo=2000"
    fixed = {sf16: 1600.0, sf20: 2000.0}
    games: list[tuple[str, str, float]] = []
    # sims=4 scores 50% against 1600 and sims=16 50% against 2000, colours alternating
    for _ in range(10):
        games += [(k.format(4), sf16, 1.0), (sf16, k.format(4), 1.0)]
        games += [(k.format(16), sf20, 1.0), (sf20, k.format(16), 1.0)]
    games.append(("human-mcts:sf_nodes=1000", sf20, 0.5))  # another search: rated apart
    games.append(("sa-mcts:z=1,sf_nodes=1000,cpuct=0.25,sweep=true", sf20, 0.5))
    search = search_options("sims", "cpuct=0.25,sf_nodes=1000,sweep=true")
    assert search == SEARCH
    scale, others = fit_scale(games, fixed, "chess", "sims", search, "test", "cmd")
    assert scale.knob == "sims" and scale.search == SEARCH and scale.command == "cmd"
    assert [p.value for p in scale.points] == [4.0, 16.0]
    assert scale.points[0].elo == pytest.approx(1600, abs=1)
    assert scale.points[1].elo == pytest.approx(2000, abs=1)
    assert (scale.points[0].games, scale.points[0].score) == (20, 10.0)
    assert [o.spec for o in others] == [
        "human-mcts:sf_nodes=1000", "sa-mcts:z=1,sf_nodes=1000,cpuct=0.25,sweep=true",
    ]  # fmt: skip
    # on the z knob, the sa-mcts player is the one point
    z_search = search_options("z", "cpuct=0.25,sf_nodes=1000,sweep=true")
    assert z_search == {"sims": 100, **SEARCH}
    z_scale, _ = fit_scale(games, fixed, "chess", "z", z_search, "test")
    assert [p.value for p in z_scale.points] == [1.0]
    with pytest.raises(ConfigError, match="only sims"):
        fit_scale([*games, ("human-mcts:sims=8,sf_nodes=1000,cpuct=0.25,sweep=true,movetime=1",
                            sf16, 1.0)], fixed, "chess", "sims", search, "test")  # fmt: skip
    with pytest.raises(ConfigError, match="no sa-mcts"):
        fit_scale([("human-mcts", sf16, 0.5)], fixed, "chess", "z", z_search, "test")
    with pytest.raises(ConfigError, match="knob is one of"):
        search_options("depth", "")


def test_scale_fit_command(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from sparring.cli import app
    from sparring.evaluation.store import GameRecord, GameStore, RunInfo

    k = "human-mcts:sims={},sf_nodes=1000,cpuct=0.25,sweep=true"
    store = tmp_path / "g.sqlite"
    with GameStore(store) as db:
        db.ensure_run(RunInfo("r", "match", "chess", {}))
        for i in range(8):  # sims=4 wins half against 1600 (the first player always wins)
            a = (k.format(4), "stockfish:elo=1600")
            db.add_game(GameRecord("chess", *a, "A", "B", i % 2 == 0, 0, (), (), 1.0, "r", 0, i))
    out = tmp_path / "scale.json"
    runner = CliRunner()
    fixed = ["--fixed", "stockfish:elo=1600=1600"]
    result = runner.invoke(app, ["scale-fit", "chess", str(store), *fixed, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "sims=4: 1600 +-" in result.output
    scale = ExternalScale.read(out)
    assert scale.knob == "sims" and [p.value for p in scale.points] == [4.0]
    assert scale.points[0].elo == pytest.approx(1600, abs=1)
    # --same: a target check's sf_elo player counts as the sims it played (it lost all 4)
    with GameStore(store) as db:
        for i in range(4):
            a = ("stockfish:elo=1600", "human-mcts:sf_elo=1500")
            db.add_game(GameRecord("chess", *a, "A", "B", True, 0, (), (), 1.0, "r", 0, 8 + i))
    same = ["--same", f"human-mcts:sf_elo=1500=={k.format(4)}"]
    args = ["scale-fit", "chess", str(store), *fixed, *same, "--out", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "sims=4:" in result.output and "(4/12)" in result.output
    assert "sf_elo" not in result.output
    before = out.read_text()
    for args, message in [
        ([str(store), *fixed, "--same", "human-mcts:sf_elo=1500"], "SPEC==OTHER"),
        ([str(tmp_path / "none.sqlite"), *fixed], "not found"),
        ([str(store), "--fixed", "stockfish:elo=2000=2000"], "no games"),
        ([str(store), "--fixed", "stockfish:elo=1600=high"], "SPEC=ELO"),
        ([str(store), *fixed, "--knob", "depth"], "knob is one of"),
    ]:
        result = runner.invoke(app, ["scale-fit", "chess", *args, "--out", str(out)])
        said = result.output + str(result.exception)  # (the CLI's main prints the exception)
        assert result.exit_code != 0 and message in said, said
        assert out.read_text() == before  # a refused command changes nothing


def test_scale_fit_below_writes_a_chain(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from sparring.cli import app
    from sparring.evaluation.store import GameRecord, GameStore, RunInfo

    deep = "human-mcts:sims=8,sf_nodes={},cpuct=0.25,sweep=true"
    store = tmp_path / "g.sqlite"
    with GameStore(store) as db:
        db.ensure_run(RunInfo("r", "match", "chess", {}))
        for i in range(8):  # 2000 nodes score 6 of 8 against 1600, 4000 nodes 7 of 8
            for j, (nodes, wins) in enumerate([(2000, 6), (4000, 7)]):
                a = (deep.format(nodes), "stockfish:elo=1600")
                record = GameRecord("chess", *a, "A", "B", i < wins, 0, (), (), 1.0, "r", j, i)
                db.add_game(record)
    lower = tmp_path / "lower.json"
    lower.write_text(_scale((2, 1000), (4, 1300), (8, 1500), knob="sims").to_json())
    out = tmp_path / "chain.json"
    args = ["scale-fit", "chess", str(store), "--fixed", "stockfish:elo=1600=1600",
            "--knob", "sf_nodes", "--search", "cpuct=0.25,sims=8,sweep=true",
            "--scale", "test", "--below", str(lower), "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    chain = ExternalScale.read(out)
    assert chain.points == ExternalScale.read(lower).points and chain.above is not None
    assert chain.above.knob == "sf_nodes" and [p.value for p in chain.above.points] == [2000, 4000]
    assert dict(chain.above.search) == {"sims": 8, "cpuct": 0.25, "sweep": True}
    assert [p.score for p in chain.above.points] == [6.0, 7.0]
    # a fit that does not reach above the lower scale's top is refused, nothing written
    high = tmp_path / "high.json"
    high.write_text(_scale((2, 1000), (8, 2500), knob="sims").to_json())
    args[args.index(str(lower))] = str(high)
    args[args.index(str(out))] = str(tmp_path / "no.json")
    result = CliRunner().invoke(app, args)
    assert "tops out at" in str(result.exception) and not (tmp_path / "no.json").exists()


CI = os.environ.get("SPARRING_CI") == "1"
needs_stockfish = pytest.mark.skipif(
    find_program("stockfish") is None and not CI,
    reason="stockfish is not installed (apt-get install stockfish; SPARRING_CI=1 fails instead)",
)


@needs_stockfish
def test_the_built_player_plays_the_scale_setting_and_reports_it(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    scale = ExternalScale(
        "chess", "test", "sims", {"cpuct": 0.25, "sf_nodes": 50, "sweep": True},
        (ScalePoint(2, 1000, 100, 20, 5), ScalePoint(4, 1300, 100, 20, 10)),
    )  # fmt: skip
    path.write_text(scale.to_json())
    game = get_game("chess")
    cache = PlayerCache()
    inside = make_player(f"human-mcts:sf_elo=1150,scale={path}", game, 1, cache)
    analysis = inside.play(game, game.initial_state()).analysis
    assert analysis is not None and analysis.strength is not None
    assert analysis.simulations == 3  # 1150 -> 2 + 2 * 150 / 300 = 3 simulations
    strength = analysis.strength
    assert (strength.elo_asked, strength.elo_played, strength.clamped) == (1150, 1150, False)
    assert analysis.notices == ()
    above = make_player(f"human-mcts:sf_elo=2000,scale={path}", game, 1, cache)
    analysis = above.play(game, game.initial_state()).analysis
    assert analysis is not None and analysis.strength is not None
    assert analysis.simulations == 4
    assert (analysis.strength.elo_played, analysis.strength.clamped) == (1300, True)
    assert analysis.notices == ("Elo 2000 is outside the measured Stockfish scale; playing 1300",)
    for value in cache._shared.values():
        close = getattr(value, "close", None)
        if close is not None:
            close()
