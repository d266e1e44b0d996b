"""`pretrained=True` still works in torchvision 0.29, with two UserWarnings; the weights enum replaces it."""

# ---- hidden set-up, never shown: pretrained weights without a download ----
# torchvision loads ResNet18_Weights.DEFAULT from $TORCH_HOME/hub/checkpoints/ when the file is there, and checks a
# hash only after downloading. The site runs offline, so a randomly initialized checkpoint stands in for the ImageNet
# one: the tests provide it (tests/plugin/offline_weights.py); run on its own, this file makes one in a temporary
# TORCH_HOME (never in your real one, where a random file would shadow the real download).
import os
import tempfile
from pathlib import Path

import torch
from torchvision.models import ResNet18_Weights, resnet18

_name = Path(ResNet18_Weights.DEFAULT.url).name
_home = os.environ.get("TORCH_HOME")
_found = (
    _home is not None and Path(_home, "hub", "checkpoints", _name).is_file()
)
_temporary = (
    None if _found else tempfile.TemporaryDirectory()
)  # deleted when the script exits
os.environ["TORCH_HOME"] = _home if _found else _temporary.name
_checkpoint = Path(os.environ["TORCH_HOME"], "hub", "checkpoints", _name)
_checkpoint.parent.mkdir(parents=True, exist_ok=True)
_found or torch.save(resnet18(weights=None).state_dict(), _checkpoint)

# --8<-- [start:old_flag]
import warnings

import torch
from torchvision.models import ResNet18_Weights, resnet18

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old = resnet18(pretrained=True)  # the pre-0.13 spelling
print([w.category.__name__ for w in caught])  # warnings, not an error
# > ['UserWarning', 'UserWarning']
new = resnet18(weights=ResNet18_Weights.DEFAULT)
print(
    all(
        torch.equal(old.state_dict()[k], v) for k, v in new.state_dict().items()
    )
)
# > True
# --8<-- [end:old_flag]

# --8<-- [start:registry]
from torchvision.models import get_model, get_model_weights

# the same enum, looked up by the model's name
weights = get_model_weights("resnet18").DEFAULT
# builders by name: handy in configs
model = get_model("resnet18", weights=weights)
print(weights, model.fc.out_features)
# > ResNet18_Weights.IMAGENET1K_V1 1000
# --8<-- [end:registry]


# ---- checks: run by the tests, never shown on the page ----
def _check() -> None:
    import pytest

    # The exact warnings: the flag is deprecated since 0.13, and True is mapped to IMAGENET1K_V1 (not DEFAULT).
    with pytest.warns(
        UserWarning,
        match=r"The parameter 'pretrained' is deprecated since 0\.13",
    ):
        with pytest.warns(
            UserWarning,
            match=r"equivalent to passing `weights=ResNet18_Weights\.IMAGENET1K_V1`",
        ):
            resnet18(pretrained=True)
    # pretrained=False warns the same way and means weights=None: a random model, not the checkpoint.
    with pytest.warns(
        UserWarning,
        match=r"The parameter 'pretrained' is deprecated since 0\.13",
    ):
        with pytest.warns(
            UserWarning, match=r"equivalent to passing `weights=None`"
        ):
            random_model = resnet18(pretrained=False)
    saved = torch.load(_checkpoint, weights_only=True)
    assert not torch.equal(random_model.conv1.weight, saved["conv1.weight"])
    # Both spellings loaded exactly the checkpoint file the loader found in $TORCH_HOME.
    assert all(torch.equal(saved[k], v) for k, v in old.state_dict().items())
    assert all(torch.equal(saved[k], v) for k, v in model.state_dict().items())
    assert len(caught) == 2 and all(w.category is UserWarning for w in caught)
    # The enum also accepts its member names as strings; get_model_weights returns the enum class.
    assert ResNet18_Weights.verify("DEFAULT") is ResNet18_Weights.IMAGENET1K_V1
    assert get_model_weights("resnet18") is ResNet18_Weights
    # One architecture, several weights, each with its own preprocessing: why an enum replaced the boolean.
    from torchvision.models import ResNet50_Weights

    assert ResNet50_Weights.DEFAULT is ResNet50_Weights.IMAGENET1K_V2
    v1, v2 = ResNet50_Weights.IMAGENET1K_V1, ResNet50_Weights.IMAGENET1K_V2
    assert (
        v2.meta["_metrics"]["ImageNet-1K"]["acc@1"]
        > v1.meta["_metrics"]["ImageNet-1K"]["acc@1"]
    )
    assert v1.transforms().resize_size != v2.transforms().resize_size
    # Weights=None builds without a warning (the runner would fail on a deprecation warning).
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        resnet18(weights=None)


if __name__ == "__main__":
    _check()
