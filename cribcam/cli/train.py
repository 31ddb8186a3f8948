"""`cribcam train`: train the card detector and export it for the reader."""

from __future__ import annotations

from pathlib import Path

from cribcam.cli.main import UsageError


def add_parser(subparsers) -> None:
    from cribcam.training.recipe import Recipe

    defaults = Recipe(data="")
    parser = subparsers.add_parser(
        "train", help="train the card detector (needs the `train` extra)",
        description="Train the YOLO card-corner detector on a data set from `cribcam data build` "
                    "and export it to ONNX. Install the tools first: pip install -e '.[train]'.")
    parser.add_argument("--data", required=True, help="data.yaml of the data set")
    parser.add_argument("--model", default=defaults.model,
                        help=f"model yaml to train from scratch, or a .pt to go on from (default {defaults.model})")
    for name in ("epochs", "imgsz", "batch", "seed", "workers", "patience"):
        parser.add_argument(f"--{name}", type=int, default=getattr(defaults, name))
    parser.add_argument("--device", default=defaults.device, help="cpu, or a CUDA device like 0")
    parser.add_argument("--cache", choices=["false", "ram", "disk"], default=defaults.cache)
    parser.add_argument("--project", default=defaults.project, help="folder for run outputs")
    parser.add_argument("--name", default=defaults.name, help="run name")
    parser.add_argument("--real", type=Path, metavar="DATA_YAML",
                        help="also train on real photos: the data.yaml of `cribcam data real`")
    parser.add_argument("--real-repeat", type=int, default=defaults.real_repeat,
                        help=f"times each real training photo is listed (default {defaults.real_repeat})")
    parser.add_argument("--set", nargs="+", default=[], metavar="KEY=VALUE",
                        help="further ultralytics train arguments, e.g. time=0.12 lr0=0.002")
    parser.add_argument("--out", type=Path, default=Path("models/cribcam-cards.onnx"),
                        help="where to write the exported ONNX model")
    parser.set_defaults(handler=run)


def run(args) -> int:
    try:
        from cribcam.training.recipe import Recipe, export_onnx, train
        import ultralytics  # noqa: F401  (checked here for a clear message)
    except ImportError:
        raise UsageError("training needs torch and ultralytics: pip install -e '.[train]'") from None
    if not Path(args.data).is_file():
        raise UsageError(f"no data set at {args.data}: build one with `cribcam data build`")
    if not (args.model.endswith((".yaml", ".yml")) or Path(args.model).is_file()):
        raise UsageError(f"--model {args.model}: give a model yaml (yolo11n.yaml) or an existing .pt")
    if args.real is not None and not args.real.is_file():
        raise UsageError(f"no real photo set at {args.real}: make one with `cribcam data real`")
    if args.real_repeat < 1:
        raise UsageError(f"--real-repeat must be at least 1, not {args.real_repeat}")
    recipe = Recipe(data=args.data, model=args.model, epochs=args.epochs, imgsz=args.imgsz,
                    batch=args.batch, seed=args.seed, device=args.device, workers=args.workers,
                    cache=args.cache, project=args.project, name=args.name, patience=args.patience,
                    real=str(args.real) if args.real else None, real_repeat=args.real_repeat,
                    extra=tuple(_settings(args.set)))
    best = train(recipe)
    out = export_onnx(best, args.out, args.imgsz)
    print(f"best checkpoint: {best}\nONNX model: {out}")
    return 0


def _settings(pairs: list[str]) -> list[tuple[str, object]]:
    """KEY=VALUE pairs with YAML values (numbers, booleans, strings), as ultralytics takes them."""
    import yaml

    settings = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.isidentifier():
            raise UsageError(f"--set {pair}: expected KEY=VALUE, e.g. lr0=0.002")
        settings.append((key, yaml.safe_load(value)))
    return settings
