"""Strength estimation commands (Chen, Shih & Wu, ICLR 2025): ``se-data``, ``se-train``,
``se-eval`` and the users' ``estimate``."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from sparring.cli.common import (
    BACKEND_HELP,
    RAY_ADDRESS_HELP,
    BackendName,
    backend_from_options,
    check_output_dir,
    check_output_file,
)
from sparring.errors import (
    BadValueError,
    IncompatibleError,
    MissingResourceError,
    UnknownGameError,
)

if TYPE_CHECKING:
    from sparring.experiments.se_strength import SEStrengthConfig, SEStrengthResult
    from sparring.players.external_scale import ExternalScale

console = Console()


def _config(game: str, config: Path | None, **overrides: Any) -> Any:
    from sparring.estimation.train import SEConfig

    if config is not None:
        return SEConfig.from_toml(config, game, **overrides)
    given = {k: v for k, v in overrides.items() if v is not None}
    return SEConfig.from_mapping({"game": game, **given})


def _game(name: str) -> str:
    game = name.strip().lower()
    if game not in ("go", "chess"):
        raise UnknownGameError(f"strength estimation supports go and chess, not {name!r}")
    return game


GameArg = Annotated[str, typer.Argument(help="go or chess.")]
ConfigOpt = Annotated[
    Path | None, typer.Option("--config", "-c", help="TOML file of SEConfig fields.")
]


def se_data(
    game_name: GameArg,
    config: ConfigOpt = None,
    makeup: Annotated[
        bool,
        typer.Option(
            "--makeup",
            help="Instead: compare the candidate and training folders' games per rank "
            "(years, time controls, handicaps, lengths, ratings).",
        ),
    ] = False,
    workers: Annotated[
        int, typer.Option(min=1, help="Shards extracted at once, in worker processes.")
    ] = 1,
) -> None:
    """Extract (or finish extracting) the state-action pairs of a config into the cache."""
    from sparring.estimation.data import manifest
    from sparring.estimation.extra import build_with_extra, extra_split

    if makeup:
        _print_makeup(_game(game_name))
        return
    cfg = _config(_game(game_name), config)
    folder = build_with_extra(cfg.data_config(), workers=workers)
    info = manifest(folder)
    split = info["split"]
    console.print(f"cache: {folder}")
    for row in split["ranks"]:
        console.print(
            f"  {info['ranks'][row['rank']]:>10}: {row['games']} games, "
            f"{row['val_focus_players']}/{row['focus_players']} focus players held out, "
            f"{row['val_games']} validation, {row['train_games']} training, "
            f"{row['dropped_games']} dropped"
        )
    console.print(
        f"players: {split['train_players']} training, {split['val_players']} validation, "
        f"{split['players_in_both']} in both; {len(info['refused_records'])} records refused"
    )
    if cfg.extra_games:
        prefix = extra_split(cfg.extra_games)
        extra = json.loads((folder / f"{prefix}.json").read_text())
        sides = extra["sides"]
        console.print(
            f"{prefix} (training only): {extra['rated_unique_games']} rated games, "
            f"{len(extra['refused_records'])} refused; {sides['kept']} of {sides['sides']} "
            "sides kept (dropped: "
            + ", ".join(f"{k} {v}" for k, v in sides.items() if k not in ("sides", "kept"))
            + "); games per band "
            + " ".join(str(n) for n in extra["games_per_rank"])
        )


def _shares(counts: dict[str, int], total: int, top: int) -> str:
    best = sorted(counts.items(), key=lambda kv: -kv[1])[:top]
    return " ".join(f"{k}:{100 * v / max(total, 1):.0f}%" for k, v in sorted(best))


def _print_makeup(game: str) -> None:
    from rich.table import Table

    from sparring.estimation.data import folder_makeup

    table = Table(title=f"{game}: the candidate and training folders per rank")
    for col in ("rank", "folder", "games", "years", "time controls", "handicap", "moves", "Elo"):
        table.add_column(col)
    for row in folder_makeup(game):
        table.add_row(
            row.rank,
            row.folder,
            str(row.games),
            _shares(row.years, row.games, 4),
            _shares(row.time_controls, row.games, 3),
            f"{100 * row.handicap_games / max(row.games, 1):.0f}%",
            f"{row.median_moves:.0f}",
            "-" if row.mean_elo is None else f"{row.mean_elo:.0f}",
        )
    console.print(table)


def se_train(
    game_name: GameArg,
    config: ConfigOpt = None,
    variant: Annotated[
        str | None,
        typer.Option(
            help="se, se-inf, sl or play (a policy/value network with the rank as an input; "
            "overrides the config; default se-inf)."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Run folder (default runs/se-GAME-VARIANT); an existing run resumes."),
    ] = None,
    steps: Annotated[int | None, typer.Option(min=1, help="Stop after this many steps.")] = None,
    device: Annotated[str | None, typer.Option(help="cpu, cuda or auto.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed (overrides the config).")] = None,
    progress: Annotated[
        bool, typer.Option(help="Show a progress bar (off: the held-out lines only).")
    ] = True,
    data_folder: Annotated[
        Path | None,
        typer.Option(
            help="Train from this cache folder (built by se-data, copied here) instead of "
            "the config's; its settings must match the config's.",
            exists=True,
            file_okay=False,
        ),
    ] = None,
) -> None:
    """Train (or resume) a strength estimator (SE, SE-inf), the SL baseline classifier, or a
    play network (``--variant play``: policy and value with the rank as an input)."""
    from sparring.estimation.train import SETrainer

    game = _game(game_name)
    v = None if variant is None else variant.replace("-", "_")
    cfg = _config(game, config, variant=v, device=device, seed=seed)
    if steps is not None:
        cfg = type(cfg).from_mapping(cfg.to_mapping() | {"steps": steps})
    directory = out or Path("runs") / f"se-{game}-{cfg.variant.replace('_', '-')}"
    check_output_dir(directory, "--out")
    trainer = SETrainer(cfg, directory, show_progress=progress, data_folder=data_folder)
    target = cfg.steps
    if trainer.state.step:
        console.print(f"resuming {directory} at step {trainer.state.step}")
    console.print(
        f"{cfg.variant}: {len(trainer.train_pairs)} training pairs, "
        f"{0 if trainer.val_pairs is None else len(trainer.val_pairs)} held-out pairs, "
        f"device {trainer.device}"
    )
    with Progress(
        TextColumn("[bold]training"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[info]}"),
        console=console,
        disable=not progress,
    ) as bar:
        task = bar.add_task("training", total=target, completed=trainer.state.step, info="")

        def report(step: int, total: int, record: dict[str, Any]) -> None:
            info = ""
            if "loss_rank" in record:
                info = (
                    f"policy {record['loss_policy']:.2f} value {record['loss_value']:.3f}"
                    if cfg.variant == "play"
                    else f"rank {record['loss_rank']:.3f} policy {record['loss_policy']:.2f} "
                    f"value {record['loss_value']:.3f}"
                )
            if info:
                bar.update(task, completed=step, info=info)
            else:
                bar.update(task, completed=step)
            if any(k.startswith("val_") for k in record):
                vals = " ".join(
                    f"{k[4:]}={v:.3f}" for k, v in record.items() if k.startswith("val_")
                )
                console.print(f"step {step}: held-out {vals}")

        trainer.run(target, report=report)
    console.print(f"model: {directory / 'model.pt'}; log: {directory / 'log.jsonl'}")


def se_eval(
    game_name: GameArg,
    runs: Annotated[list[Path], typer.Argument(help="Run folders of se-train (any kinds).")],
    out: Annotated[
        Path | None, typer.Option(help="Report folder (default runs/se-eval-GAME).")
    ] = None,
    draws: Annotated[int | None, typer.Option(min=1, help="Draws per rank and N (500).")] = None,
    max_games: Annotated[int | None, typer.Option(min=1, help="Largest N (100).")] = None,
    unit: Annotated[str | None, typer.Option(help="game (both players) or side.")] = None,
    device: Annotated[str | None, typer.Option(help="cpu, cuda or auto.")] = None,
    positions: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="Positions scored per player and held-out/candidate game (0: every move); "
            "extracts them when the run was trained with another number.",
        ),
    ] = None,
    reference_fit: Annotated[
        str,
        typer.Option(
            help="References kept in RUN/estimator.pt: choose (the form that predicts the "
            "choose part of the held-out players best; needs --heldout split), mean (the "
            "paper's per-rank means) or line (their least-squares line over the ranks); "
            "both forms are reported."
        ),
    ] = "choose",
    heldout: Annotated[
        str,
        typer.Option(
            help="split: choose on one part of the held-out players and report on the other "
            "(no player in both); all: report on every held-out game (no choice is made "
            "on them, so give --reference-fit mean or line)."
        ),
    ] = "split",
) -> None:
    """Evaluate strength-estimator runs: rank-prediction accuracy on held-out players.

    Accuracy against the number of games, per rank and against the move number; plots and a
    markdown report.  By default the held-out players are split in two: the reference form
    is chosen on the choose part and every figure is measured on the report part.  Writes
    RUN/estimator.pt."""
    from sparring.errors import BadValueError
    from sparring.estimation.report import HELDOUT, evaluate_run, write_report

    game = _game(game_name)
    if heldout not in HELDOUT:
        raise BadValueError(
            f"--heldout must be one of {', '.join(HELDOUT)}, not {heldout!r}", key="heldout"
        )
    if reference_fit not in ("choose", "mean", "line"):
        raise BadValueError(
            f"--reference-fit must be choose, mean or line, not {reference_fit!r}",
            key="reference_fit",
        )
    if reference_fit == "choose" and heldout == "all":
        raise BadValueError(
            "--reference-fit choose needs --heldout split (a form chosen on the games it is "
            "reported on is not a test); give --reference-fit mean or line",
            key="reference_fit",
        )
    overrides = {
        "eval_draws": draws,
        "eval_max_games": max_games,
        "eval_unit": unit,
        "device": device,
        "reference_fit": None if reference_fit == "choose" else reference_fit,
        "eval_positions_per_side": positions,
    }
    check_output_dir(out or Path("runs") / f"se-eval-{game}", "--out")
    evals = []
    for run in runs:
        ev = evaluate_run(run, overrides, heldout=heldout, choose_fit=reference_fit == "choose")
        if ev.config.game != game:
            raise IncompatibleError(f"{run} is a {ev.config.game} run, not {game}")
        evals.append(ev)
        if ev.choice is not None:
            scores = ", ".join(f"{k} {100 * v:.1f}%" for k, v in ev.choice.criterion.items())
            console.print(
                f"{run}: reference form chosen on the choose part: {ev.choice.chosen} "
                f"(mean exact over N: {scores})"
            )
        if ev.heldout == "split":
            console.print(f"{run}: accuracy on the report part of the held-out players only")
        for m in ev.methods:
            c = m.curves
            pick = [
                k
                for k in (1, 5, 15, 26, 50, 100)
                if k <= c.exact.shape[1] and not math.isnan(c.mean_exact[k - 1])
            ]
            console.print(
                f"{m.name:>13} ({run}): "
                + " ".join(f"N={k} {100 * c.mean_exact[k - 1]:.1f}%" for k in pick)
                + f"; +-1 at N=1 {100 * c.mean_within1[0]:.1f}%"
            )
    path = write_report(evals, out or Path("runs") / f"se-eval-{game}", game)
    console.print(f"report: {path}")


def estimate(
    files: Annotated[list[Path], typer.Argument(help="SGF (Go) or PGN (chess) files or folders.")],
    player: Annotated[
        str, typer.Option("--player", "-p", help="The player's name in the records.")
    ],
    model: Annotated[
        str | None,
        typer.Option(
            help="A shipped estimator's name (go-se, go-se-inf, chess-se, chess-se-inf) or an "
            "estimator file (se-eval's RUN/estimator.pt); default: GAME-se."
        ),
    ] = None,
    device: Annotated[
        str, typer.Option(help="cpu, cuda or auto (a PyTorch estimator file; needs PyTorch).")
    ] = "cpu",
) -> None:
    """Estimate a player's rank (Go) or Elo band (chess) from their games."""
    from sparring.estimation.data import Record
    from sparring.estimation.predict import estimate_player
    from sparring.nn.estimators import default_estimator, resolve_estimator
    from sparring.records import RecordError, read_pgn_games, read_sgf_games
    from sparring.records.common import record_files

    if device == "cpu":  # the shipped estimators' ONNX files run on the CPU, without PyTorch
        dev = device
    else:
        from sparring.estimation.train import resolve_device

        dev = str(resolve_device(device))
    model_path = resolve_estimator(model) if model is not None else None
    records: list[Record] = []
    errors: list[RecordError] = []
    kinds: set[str] = set()
    read: set[Path] = set()
    repeated: list[Path] = []
    for path in files:
        suffixes = (
            [".sgf", ".pgn"]
            if path.is_dir()
            else [path.suffix.lower()]
            if path.suffix.lower() in (".sgf", ".pgn")
            else []
        )
        if not path.exists():
            raise MissingResourceError(f"game file {str(path)!r} does not exist")
        if not suffixes:
            raise BadValueError(f"{path}: expected an .sgf (Go) or .pgn (chess) file")
        for suffix in suffixes:
            if path.is_dir() and not any(p.suffix.lower() == suffix for p in path.iterdir()):
                continue
            for f in record_files(path, suffix):
                if f.resolve() in read:  # the same file named twice (or in a folder given)
                    repeated.append(f)
                    continue
                read.add(f.resolve())
                reader = read_sgf_games if suffix == ".sgf" else read_pgn_games
                before = len(records)
                records.extend(reader(f, errors=errors))
                if len(records) > before:
                    kinds.add("go" if suffix == ".sgf" else "chess")
    if not records:
        why = f": {errors[0]}" if errors else ""
        raise MissingResourceError(f"no readable game in {', '.join(map(str, files))}{why}")
    if len(kinds) > 1:
        raise BadValueError("give Go (SGF) or chess (PGN) games, not both")
    game = kinds.pop()
    if model_path is None:
        model_path = default_estimator(game)
    result = estimate_player(records, player, model_path, device=dev)
    if repeated:
        console.print(
            f"({len(repeated)} file(s) given more than once read once: "
            f"{', '.join(sorted({str(p) for p in repeated}))})",
            highlight=False,
            soft_wrap=True,
        )
    if errors:
        console.print(f"({len(errors)} broken record(s) skipped, first: {errors[0]})")
    console.print(result.describe(), highlight=False, soft_wrap=True)


def _upload_files(files: list[Path]) -> list[Any]:
    """The texts of record files (a folder: its ``*.sgf`` and ``*.pgn`` files) as uploads."""
    from sparring.estimation.upload import UploadedFile

    out = []
    for path in files:
        if not path.exists():
            raise MissingResourceError(f"game file {str(path)!r} does not exist")
        inside = (
            sorted(p for p in path.iterdir() if p.suffix.lower() in (".sgf", ".pgn"))
            if path.is_dir()
            else [path]
        )
        for f in inside:
            out.append(UploadedFile(str(f), f.read_bytes().decode("utf-8", "replace")))
    return out


def review(
    files: Annotated[
        list[Path], typer.Argument(help="SGF (Go 19x19) or PGN (chess) files or folders.")
    ],
    player: Annotated[
        str | None,
        typer.Option(
            "--player",
            "-p",
            help="The player's name in the records (default: the one name in every game).",
        ),
    ] = None,
    rank: Annotated[
        str | None,
        typer.Option(
            help="The player's rank (Go: 9d .. 3-5k) or band (chess: 2400-2600 .. 1000-1200); "
            "default: the shipped estimator's estimate from these games."
        ),
    ] = None,
    stronger: Annotated[
        int, typer.Option(min=1, help="Compare with the rank (or band) this many steps up.")
    ] = 3,
    top: Annotated[int, typer.Option(min=1, help="Moves marked per game.")] = 5,
    game: Annotated[
        int | None,
        typer.Option(min=1, help="Review only the player's N-th game (1: the first); default all."),
    ] = None,
    network: Annotated[
        str | None,
        typer.Option(help="A play network's shipped name or file (default go-play / chess-play)."),
    ] = None,
    values: Annotated[
        bool,
        typer.Option(
            help="Also the play network's value head after the move and after the preferred "
            "one (a weak judge: see the model card)."
        ),
    ] = False,
) -> None:
    """Review a player's games by rank: their moves where a player a few ranks stronger would
    most likely have played differently, by the play network's move probabilities at the two
    ranks."""
    from sparring.estimation.predict import estimate_player, find_player_games
    from sparring.estimation.review import review_with_network
    from sparring.estimation.upload import describe_duplicates, find_player, parse_uploads
    from sparring.nn.estimators import default_estimator

    uploaded = parse_uploads(_upload_files(files), max_games=10**9)
    name, how = find_player(uploaded.records, player)
    if uploaded.duplicates:
        console.print(describe_duplicates(uploaded.duplicates), highlight=False, soft_wrap=True)
    games = find_player_games(uploaded.records, name)
    if rank is None:
        est = estimate_player(uploaded.records, name, default_estimator(uploaded.game))
        rank = est.rank_name
        console.print(
            f"{name} ({how}): estimated {rank} from {len(est.games)} game(s); reviewed at {rank}",
            highlight=False,
        )
    if game is not None:
        if game > len(games):
            raise BadValueError(f"--game {game}: {name} has {len(games)} game(s)", key="--game")
        games = [games[game - 1]]
    for record, side in games:
        result = review_with_network(record, side, rank, stronger, top, network, values)
        console.print(result.describe(), highlight=False, soft_wrap=True)


def se_policy(
    game_name: GameArg,
    model: Annotated[
        list[str],
        typer.Option(
            "--model",
            "-m",
            help="Shipped estimator name (go-se, go-se-inf, chess-se, chess-se-inf) or a "
            "model file; repeat to compare several on the same positions.",
        ),
    ],
    positions: Annotated[
        int, typer.Option(min=1, help="Positions, an equal share per rank.")
    ] = 20_000,
    seed: Annotated[int, typer.Option(help="Seed of the position draw.")] = 0,
    split_seed: Annotated[
        int, typer.Option(help="Data seed of the models' training split (configs: 1).")
    ] = 1,
    val_fraction: Annotated[
        float, typer.Option(help="Held-out share of the models' training split (0.15).")
    ] = 0.15,
    symmetric: Annotated[
        bool,
        typer.Option(
            "--symmetric",
            help="Average each policy over the rules' symmetric images of the position (Go: "
            "8; chess: the left-right reflection where no side may castle).",
        ),
    ] = False,
) -> None:
    """Policy-head move match on held-out players' games: how often the argmax of the policy
    is the human move (top-1, top-5; without and with a legal-move mask), per rank, and how
    much probability it puts on illegal moves."""
    from sparring.estimation.heldout import held_out_positions, policy_match
    from sparring.nn.estimators import resolve_estimator
    from sparring.nn.strength_net import load_strength_model

    game = _game(game_name)
    nets = []
    for name in model:
        net, _ = load_strength_model(resolve_estimator(name))
        if net.config.game != game:
            raise IncompatibleError(f"{name} is a {net.config.game} network, not {game}")
        nets.append((name, net))
    pos = held_out_positions(
        game, positions, seed=seed, val_fraction=val_fraction, split_seed=split_seed
    )
    console.print(
        f"{game}: {len(pos)} positions from held-out players' games "
        f"({', '.join(f'{r} {int((pos.rank == i).sum())}' for i, r in enumerate(pos.ranks))})",
        highlight=False,
        soft_wrap=True,
    )
    for name, net in nets:
        res = policy_match(net, pos, symmetric)
        console.print(
            f"{name}: top-1 {100 * res.top1:.1f}% top-5 {100 * res.top5:.1f}% (no mask); "
            f"legal-masked top-1 {100 * res.top1_legal:.1f}% top-5 {100 * res.top5_legal:.1f}%; "
            f"argmax illegal {100 * res.illegal_top1:.1f}%, "
            f"policy mass on illegal moves {100 * res.illegal_mass:.1f}%",
            highlight=False,
            soft_wrap=True,
        )
        console.print(
            "  per rank, legal-masked top-1: "
            + " ".join(
                f"{r} {100 * v:.1f}"
                for r, v in zip(pos.ranks, res.per_rank_top1_legal, strict=True)
            ),
            highlight=False,
            soft_wrap=True,
        )


def se_match(
    game_name: GameArg,
    out: Annotated[Path, typer.Option(help="Report folder (match.md, match.json, match.png).")],
    program: Annotated[
        list[str] | None,
        typer.Option(
            "--program",
            "-p",
            help="policy:model=NAME[,sym=yes] (a policy head, legal top-1; sym: averaged over "
            "the rules' symmetries), player:SPEC (a player, "
            "{rank} in SPEC replaced by each rank group), or policy (the GAME-se and "
            "GAME-se-inf policy heads); repeat for several.",
        ),
    ] = None,
    positions: Annotated[
        int, typer.Option(min=1, help="Positions, an equal share per rank.")
    ] = 2_000,
    seed: Annotated[int, typer.Option(help="Seed of the position draw.")] = 0,
    split_seed: Annotated[
        int, typer.Option(help="Data seed of the estimators' training split (configs: 1).")
    ] = 1,
    val_fraction: Annotated[
        float, typer.Option(help="Held-out share of the estimators' training split (0.15).")
    ] = 0.15,
    part: Annotated[
        str,
        typer.Option(
            help="Held-out games to draw from: all, or the player-disjoint halves tune (to "
            "choose a setting on) and test (to report it on)."
        ),
    ] = "all",
    cpl_depth: Annotated[
        int,
        typer.Option(
            min=0,
            help="Chess: also judge every move's centipawn loss (programs' and humans') with "
            "Stockfish searching to this depth; 0: off.",
        ),
    ] = 0,
    stockfish: Annotated[
        Path | None,
        typer.Option(help="Stockfish binary for --cpl-depth (default: on the PATH or Debian's)."),
    ] = None,
) -> None:
    """Human move matching per rank (the paper's Tables 1-2): the share of held-out positions
    where each program plays the human move, with 95% intervals; table, plot and JSON."""
    import shlex
    import sys

    from sparring.estimation.heldout import held_out_positions
    from sparring.estimation.match import parse_program, run_match, write_match

    game = _game(game_name)
    texts: list[str] = []
    for text in program or ["policy"]:
        if text.strip() == "policy":
            texts += [f"policy:model={game}-se", f"policy:model={game}-se-inf"]
        else:
            texts.append(text)
    programs = [parse_program(t) for t in texts]
    check_output_dir(out, "--out")
    from sparring.estimation.quality import StockfishJudge, find_stockfish

    engine = stockfish or find_stockfish()
    if cpl_depth and game != "chess":
        raise BadValueError("--cpl-depth judges chess moves only (Stockfish)", key="--cpl-depth")
    if cpl_depth and (engine is None or not engine.is_file()):
        raise MissingResourceError(
            f"--cpl-depth needs Stockfish ({engine or 'not found'}): install Debian's "
            "stockfish or pass --stockfish PATH"
        )
    pos = held_out_positions(
        game, positions, seed=seed, val_fraction=val_fraction, split_seed=split_seed, part=part
    )
    if cpl_depth and engine is not None:
        with StockfishJudge(engine, depth=cpl_depth) as judge:
            table = run_match(pos, programs, seed=seed, judge=judge.losses)
    else:
        table = run_match(pos, programs, seed=seed)
    command = "sparring " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    path = write_match(table, out, command)
    for res in table.results:
        lo, hi = res.interval()
        console.print(
            f"{res.name}: {100 * res.share():.1f}% ({100 * lo:.1f}-{100 * hi:.1f}) of "
            f"{sum(res.positions)} positions",
            highlight=False,
        )
    console.print(f"report: {path}")


def se_strength(
    game_name: GameArg,
    out: Annotated[
        Path, typer.Option(help="Report folder (report.md, results.json, plot.png, games.sqlite).")
    ],
    program: Annotated[
        list[str] | None,
        typer.Option(
            "--program",
            "-p",
            help="Program template, {rank} replaced by each rank (z-fit: {z} by each z), e.g. "
            "'se-inf-mcts:rank={rank},sims=16'; repeat for several.  Default: "
            "se-inf-mcts:rank={rank} (z-fit: sa-mcts:z={z}).",
        ),
    ] = None,
    ranks: Annotated[
        str | None,
        typer.Option(
            help="Ranks, comma-separated: labels (3d, 1-2k, 1400-1600), indices r1.. (r1 the "
            "strongest) or all.  Default: all (round robin: r2,r4,r6,r8,r10).",
        ),
    ] = None,
    anchor: Annotated[
        str | None,
        typer.Option(
            help="Anchor mode: the opponent template, {rank} = --anchor-rank (default: the "
            "first program).  z-fit: the opponent, {rank} = each rank (default "
            "se-inf-mcts:rank={rank}).",
        ),
    ] = None,
    anchor_rank: Annotated[
        str | None, typer.Option(help="The anchor's rank (default: Go 5d, chess 1800-2000).")
    ] = None,
    round_robin: Annotated[
        bool, typer.Option("--round-robin", help="Round robin of the ranks with Elo (Table 5).")
    ] = False,
    z_fit: Annotated[
        bool,
        typer.Option("--z-fit", help="SA-MCTS z per rank against the anchor (appendix C)."),
    ] = False,
    z_grid: Annotated[
        str | None,
        typer.Option(help="z-fit: the z values, comma-separated (default -1,-0.5,0,0.5,1)."),
    ] = None,
    games: Annotated[
        int, typer.Option("--games", "-n", help="Games per pairing (even: both colours).")
    ] = 20,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Worker processes.")] = 1,
    seed: Annotated[int, typer.Option(help="Base seed of every pairing's games.")] = 0,
    max_games: Annotated[
        int | None,
        typer.Option(help="Play at most this many new games, then report what is stored."),
    ] = None,
    plan: Annotated[
        bool, typer.Option(help="Print the pairings and games still to play; no play.")
    ] = False,
    store: Annotated[
        Path | None, typer.Option(help="SQLite game store (default: OUT/games.sqlite).")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    backend: Annotated[BackendName, typer.Option(help=BACKEND_HELP)] = BackendName.LOCAL,
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
) -> None:
    """Strength by rank (Fig. 4 / Fig. 7, Table 5, appendix C): programs at each rank against
    the middle rank, a round robin of ranks with Elo, or SA-MCTS's z per rank; resumable."""
    import shlex
    import sys

    from sparring.cli.evaluation import exit_on_interrupt
    from sparring.errors import ConfigError
    from sparring.evaluation.store import GameStore
    from sparring.experiments.se_strength import (
        STORE_NAME,
        SEStrengthConfig,
        parse_ranks,
        run_se_strength,
        write_report,
    )

    game = _game(game_name)
    if round_robin and z_fit:
        raise ConfigError("give --round-robin or --z-fit, not both")
    config = SEStrengthConfig(
        game=game,
        mode="round-robin" if round_robin else "z-fit" if z_fit else "anchor",
        programs=tuple(program or ()),
        ranks=parse_ranks(game, ranks) if ranks is not None else (),
        anchor=anchor,
        anchor_rank=anchor_rank,
        games=games,
        seed=seed,
        workers=workers,
        **_z_grid(z_grid),
    )
    db_path = store or out / STORE_NAME
    if plan:
        _print_se_plan(config, db_path)
        return
    check_output_dir(out, "--out")
    check_output_file(db_path, "--store")
    command = "sparring " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    with exit_on_interrupt(db_path):
        with backend_from_options(backend, ray_address) as runner:
            db_path.parent.mkdir(parents=True, exist_ok=True)
            with GameStore(db_path) as db:
                result = run_se_strength(
                    config,
                    db,
                    progress=progress,
                    console=console,
                    stop_after=max_games,
                    backend=runner,
                )
        paths = write_report(result, out, command)
    _print_se_result(result, paths)


def _print_se_result(result: SEStrengthResult, paths: Mapping[str, Path]) -> None:
    """The games played and stored, and the files written."""
    console.print(
        f"{result.played} games played now, {result.skipped} already stored"
        + ("" if result.complete else " (incomplete: re-run to go on)")
    )
    for path in paths.values():
        console.print(f"wrote {path}", highlight=False)


def _z_grid(text: str | None) -> dict[str, Any]:
    """``--z-grid``'s values as :class:`SEStrengthConfig`'s ``z_grid`` (none: its default)."""
    from sparring.errors import ConfigError

    if text is None:
        return {}
    try:
        return {"z_grid": tuple(float(z) for z in text.split(",") if z.strip())}
    except ValueError:
        raise ConfigError(f"--z-grid {text!r}: expected numbers, comma-separated") from None


def _print_se_plan(config: SEStrengthConfig, db_path: Path) -> None:
    """``--plan``: the pairings, and the games to play and already stored."""
    from sparring.evaluation.store import GameStore

    pairings = config.pairings()
    for p in pairings:
        console.print(f"{p.spec_a}  vs  {p.spec_b}", highlight=False)
    done = 0
    games = config.games
    if db_path.exists():
        with GameStore(db_path) as db:
            done = sum(min(db.count(c.run_key), games) for c in config.series_configs())
    console.print(
        f"{len(pairings)} pairings x {games} games = {len(pairings) * games} games; "
        f"{done} stored in {db_path}"
    )


def scale_fit(
    game_name: GameArg,
    stores: Annotated[
        list[Path], typer.Argument(help="SQLite game stores (sparring match --store).")
    ],
    fixed: Annotated[
        list[str],
        typer.Option(
            "--fixed",
            help="SPEC=ELO: a player held at that Elo (the last '=' splits), e.g. "
            "stockfish:elo=1600=1600; repeat for each.",
        ),
    ],
    out: Annotated[Path, typer.Option(help="The scale file to write (JSON).")],
    knob: Annotated[
        str,
        typer.Option(
            help="The option varied: sims (human-mcts players) or z (sa-mcts:z=Z players)."
        ),
    ] = "sims",
    search: Annotated[
        str,
        typer.Option(
            help="The other search options of the scale's players, as spec options; the "
            "players with other options are rated apart."
        ),
    ] = "cpuct=0.25,sf_nodes=1000,sweep=true",
    scale: Annotated[
        str, typer.Option(help="What the fixed Elos are, in words (stored in the file).")
    ] = "Stockfish 15.1 UCI_Elo, 0.1 s a move",
    same: Annotated[
        list[str] | None,
        typer.Option(
            "--same",
            help="SPEC==OTHER: rate the games of SPEC as OTHER's (one player written two ways, "
            "e.g. a target check's human-mcts:sf_elo=1600 played as its sims); repeat for each.",
        ),
    ] = None,
    below: Annotated[
        Path | None,
        typer.Option(
            help="A scale file this fit continues above its top (e.g. --knob sf_nodes above the "
            "sims scale): --out is that scale with this fit as its scale above (replacing any)."
        ),
    ] = None,
) -> None:
    """Fit a strength scale: the measured Elo of the human-like search per value of one knob
    (sims or z) against engines held at fixed Elo (the file behind ``human-mcts:sf_elo=E``,
    ``--elo`` and ``UCI_Elo`` in chess; behind ``sa-mcts:gnugo_elo=E`` and ``gtp --elo`` in
    Go, with GNU Go held)."""
    import shlex
    import sys

    from sparring.errors import ConfigError
    from sparring.experiments.external_scale import (
        fit_scale,
        parse_fixed,
        parse_same,
        search_options,
        stored_results,
    )

    game = _game(game_name)
    held = parse_fixed(fixed)
    games = stored_results(stores, parse_same(same or []))
    missing = [spec for spec in held if not any(spec in (a, b) for a, b, _ in games)]
    if missing:
        raise ConfigError(f"--fixed players with no games in the stores: {', '.join(missing)}")
    check_output_file(out, "--out")
    command = "sparring " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    options = search_options(knob, search)
    result, others = fit_scale(games, held, game, knob, options, scale, command)
    written = result if below is None else _continued(below, result)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(written.to_json())
    fitted = result.fitted()
    console.print(f"search: {dict(result.search)}", highlight=False)
    for point, fit in zip(result.points, fitted, strict=True):
        console.print(
            f"{knob}={point.value:g}: {point.elo:.0f} +- {point.plus_minus:.0f} "
            f"({point.score:g}/{point.games}); monotone {fit:.0f}",
            highlight=False,
        )
    for other in others:
        console.print(
            f"{other.spec}: {other.elo:.0f} +- {other.plus_minus:.0f} "
            f"({other.score:g}/{other.games})",
            highlight=False,
        )
    console.print(f"wrote {out}", highlight=False)


def _continued(below: Path, above: ExternalScale) -> ExternalScale:
    """The scale in ``below`` with ``above`` as the scale above it (``scale-fit --below``);
    :class:`~sparring.errors.ConfigError` when they do not chain."""
    from dataclasses import replace

    from sparring.errors import ConfigError
    from sparring.players.external_scale import ExternalScale as Scale

    base = Scale.read(below)
    try:
        return replace(base, above=above)
    except ValueError as exc:
        raise ConfigError(f"--below {below}: {exc}") from None


def multiskill_eval(
    game_name: GameArg,
    out: Annotated[
        Path | None, typer.Option(help="Report folder (default runs/multiskill-GAME).")
    ] = None,
    moves_per_game: Annotated[
        int,
        typer.Option(min=0, help="Moves scored per game, a seeded sample (0: every move)."),
    ] = 16,
    games_per_player: Annotated[
        int, typer.Option(min=0, help="Games kept per focus player and rank (0: all).")
    ] = 0,
    games_per_rank: Annotated[
        int, typer.Option(min=0, help="Games kept per rank in each part (0: all).")
    ] = 0,
    play_model: Annotated[
        str | None, typer.Option(help="Play network (rank as an input); default GAME-play.")
    ] = None,
    se_model: Annotated[
        str | None, typer.Option(help="Strength estimator with references; default GAME-se.")
    ] = None,
    device: Annotated[str, typer.Option(help="cpu or cuda.")] = "cpu",
    batch: Annotated[int, typer.Option(min=1, help="Positions per network call.")] = 32,
    threads: Annotated[int, typer.Option(min=1, help="Torch threads on the CPU.")] = 1,
    draws: Annotated[int, typer.Option(min=1, help="Draws per rank and N.")] = 500,
    max_games: Annotated[int, typer.Option(min=1, help="Largest N.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of the move sample and the draws.")] = 0,
    cache: Annotated[
        Path, typer.Option(help="Folder of the per-game feature files (resumable).")
    ] = Path("runs/multiskill-cache"),
    data_root: Annotated[
        Path | None, typer.Option(help="Folder holding strength/ (default $SPARRING_DATA).")
    ] = None,
    extract_only: Annotated[
        bool, typer.Option(help="Only score the games into the cache; no report.")
    ] = False,
) -> None:
    """Evaluate the multi-skill strength estimator on held-out players.

    Per move the play network's log-likelihood at every rank and the SE strength score; per
    game their sums; a logistic regression over N games chosen on the choose part of the
    held-out players and reported once on the report part, beside the SE rule on the same
    moves: accuracy against N with 95% intervals, calibration and a confusion matrix."""
    import torch

    from sparring.estimation.multiskill import FeatureCache, extract_features, load_scorer
    from sparring.estimation.multiskill_eval import (
        command_line,
        evaluate_multiskill,
        held_out_games,
        write_report,
    )
    from sparring.nn.estimators import resolve_estimator

    game = _game(game_name)
    folder = out or Path("runs") / f"multiskill-{game}"
    check_output_dir(folder, "--out")
    torch.set_num_threads(threads)
    play = resolve_estimator(play_model or f"{game}-play")
    se = resolve_estimator(se_model or f"{game}-se")
    held = held_out_games(game, data_root, games_per_player, games_per_rank, seed)
    console.print(
        f"{game}: {len(held.records)} held-out games, {moves_per_game or 'every'} move(s) each"
    )
    if extract_only:
        scorer = load_scorer(play, se, held.ranks, device, batch)
        store = FeatureCache(cache, game, held.ranks, play, se, moves_per_game, seed)
        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
        ) as progress:
            task = progress.add_task("scoring", total=len(held.records))
            extract_features(held.records, scorer, store, lambda k: progress.advance(task, k))
        cost = store.cost()
        console.print(
            f"cache {store.folder}: {cost.positions} positions scored in {cost.seconds:.0f} s "
            f"({1000 * cost.cpu_per_position:.1f} ms of CPU a position)"
        )
        return
    ev = evaluate_multiskill(
        held, play, se, cache, moves_per_game, device, batch, draws, max_games, seed
    )
    ev.command = command_line()
    for m in ev.methods:
        c = m.curves
        pick = [k for k in (1, 5, 10, 15, 20, 50, 100) if k <= c.exact.shape[1]]
        console.print(
            f"{m.name:>12}: " + " ".join(f"N={k} {100 * c.mean_exact[k - 1]:.1f}%" for k in pick)
        )
    console.print(
        f"settings: {ev.model.settings.describe()}, {ev.model.combination.describe()}; "
        f"ECE {ev.pooled.ece:.3f}"
    )
    console.print(f"report: {write_report(ev, folder)}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("se-data")(se_data)
    app.command("se-train")(se_train)
    app.command("se-eval")(se_eval)
    app.command("multiskill-eval")(multiskill_eval)
    app.command("se-policy")(se_policy)
    app.command("se-match")(se_match)
    app.command("se-strength")(se_strength)
    app.command("estimate")(estimate)
    app.command("review")(review)
    app.command("scale-fit")(scale_fit)
