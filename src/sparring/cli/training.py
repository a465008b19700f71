"""``sparring train``: AlphaZero self-play training (AlphaDDA app. 1.3)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from sparring.cli.common import check_output_dir
from sparring.games import get_game

console = Console()


def train(
    game_name: Annotated[str, typer.Argument(help="Game to train, e.g. connect4.")],
    config: Annotated[
        Path | None, typer.Option("--config", "-c", help="TOML file of TrainConfig fields.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Run directory (default runs/train-GAME); resumes there.")
    ] = None,
    iterations: Annotated[
        int | None, typer.Option(min=1, help="Stop after this many iterations in all.")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed (overrides the config).")] = None,
) -> None:
    """Train (or resume training) a policy/value network by self-play."""
    from sparring.training.config import TrainConfig
    from sparring.training.trainer import Trainer

    get_game(game_name)
    overrides: dict[str, Any] = {}
    if seed is not None:
        overrides["seed"] = seed
    cfg = (
        TrainConfig.from_toml(config, game_name, **overrides)
        if config is not None
        else TrainConfig.for_game(game_name, **overrides)
    )
    directory = out or Path("runs") / f"train-{game_name}"
    check_output_dir(directory, "--out")
    trainer = Trainer(cfg, directory)
    target = iterations or cfg.iterations
    done = trainer.state.iteration
    if done:
        console.print(f"resuming {directory} at iteration {done} ({trainer.state.games} games)")
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[info]}"),
        console=console,
    ) as progress:
        task = progress.add_task("training", total=target, completed=done, info="")

        def phase(name: str) -> None:
            progress.update(task, description=name)

        def report(iteration: int, total: int, record: dict[str, Any]) -> None:
            scores = " ".join(
                f"{k[9:]}={v:.2f}" for k, v in record.items() if k.startswith("score_vs_")
            )
            info = f"loss v={record['loss_value']:.3f} p={record['loss_policy']:.3f} {scores}"
            progress.update(task, completed=iteration, info=info)
            if scores:
                progress.console.print(f"iteration {iteration}: {info}")

        trainer.run(target, report=report, phase=phase)
    console.print(f"model: {directory / 'model.pt'}; log: {directory / 'log.jsonl'}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("train")(train)
