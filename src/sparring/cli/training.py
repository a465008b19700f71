"""``sparring train``: AlphaZero self-play training (AlphaDDA app. 1.3)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from sparring.cli.common import (
    RAY_ADDRESS_HELP,
    BackendName,
    backend_from_options,
    check_output_dir,
)
from sparring.games import get_game

if TYPE_CHECKING:
    from sparring.evaluation.backend import Backend
    from sparring.training.config import TrainConfig
    from sparring.training.distributed import RaySelfPlay
    from sparring.training.processes import ProcessSelfPlay
    from sparring.training.trainer import Trainer

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
    backend: Annotated[
        BackendName,
        typer.Option(
            help="Where self-play runs: local (this process) or ray (Ray actors on the "
            "cluster at --ray-address; pip install 'sparring[ray]'; other samples than local, "
            "see docs/research/ray.md). The learner runs here either way."
        ),
    ] = BackendName.LOCAL,
    ray_address: Annotated[str | None, typer.Option(help=RAY_ADDRESS_HELP)] = None,
    selfplay_actors: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Self-play actors with --backend ray (default: the cluster's CPUs). The "
            "samples depend on it: resume with the same number.",
        ),
    ] = None,
    selfplay_workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Self-play in this many local worker processes (spawned; each plays a "
            "share of the iteration's games, on the config's device). The samples depend "
            "on it (the same as that many Ray actors): resume with the same number.",
        ),
    ] = None,
    minutes: Annotated[
        float | None,
        typer.Option(
            min=0,
            help="Stop (checkpointed, resumable) after the first iteration that ends this "
            "many minutes after the start.",
        ),
    ] = None,
) -> None:
    """Train (or resume training) a policy/value network by self-play."""
    from sparring.errors import BadValueError
    from sparring.training.config import TrainConfig

    get_game(game_name)
    if selfplay_actors is not None and BackendName(backend) is not BackendName.RAY:
        raise BadValueError("--selfplay-actors needs --backend ray", key="--selfplay-actors")
    if selfplay_workers is not None and BackendName(backend) is not BackendName.LOCAL:
        raise BadValueError(
            "--selfplay-workers is for --backend local; with Ray use --selfplay-actors",
            key="--selfplay-workers",
        )
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
    with backend_from_options(backend, ray_address) as runner:
        _train(cfg, directory, iterations, runner, selfplay_actors, selfplay_workers, minutes)


def _train(
    cfg: TrainConfig,
    directory: Path,
    iterations: int | None,
    runner: Backend | None,
    actors: int | None,
    workers: int | None = None,
    minutes: float | None = None,
) -> None:
    """Run the training (``runner``: None for local self-play, in this process or in
    ``workers`` processes; else the Ray backend)."""
    from sparring.training.trainer import Trainer

    self_play: RaySelfPlay | ProcessSelfPlay | None = None
    if runner is None and workers is not None:
        from sparring.training.processes import ProcessSelfPlay

        self_play = ProcessSelfPlay(workers)
    elif runner is not None:
        from sparring.evaluation.ray_backend import RayBackend
        from sparring.training.distributed import RaySelfPlay

        if not isinstance(runner, RayBackend):
            raise TypeError(f"self-play runs locally or on Ray, not on {runner!r}")
        self_play = RaySelfPlay(runner, actors=actors)
    try:
        _train_with(Trainer(cfg, directory, self_play), directory, iterations, minutes)
    finally:
        if self_play is not None:
            self_play.close()


def _train_with(
    trainer: Trainer, directory: Path, iterations: int | None, minutes: float | None = None
) -> None:
    """The progress display around ``trainer.run``."""
    cfg = trainer.config
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

        seconds = None if minutes is None else 60.0 * minutes
        trainer.run(target, report=report, phase=phase, seconds=seconds)
    console.print(f"model: {directory / 'model.pt'}; log: {directory / 'log.jsonl'}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("train")(train)
