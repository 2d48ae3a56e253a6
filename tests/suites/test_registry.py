"""Registry, get_suite and load_items argument handling."""
import pytest

from toolkit.core.errors import UnknownComponent
from toolkit.stages.suites import SUITES, Suite, get_suite, load_items, register_suite


def test_registry_holds_the_four_suites_by_class():
    assert list(SUITES)[:4] == ["smoke", "sst", "harmbench", "xstest"]
    for component in SUITES.components():
        name, cls = component.name, component.load()
        assert issubclass(cls, Suite) and cls.name == name and component.summary == cls.description
        suite = get_suite(name)
        assert isinstance(suite, cls)
        assert all(isinstance(getattr(suite, a), str) and getattr(suite, a) for a in
                   ("description", "source", "revision", "license"))


def test_unknown_suite_lists_valid_names():
    with pytest.raises(UnknownComponent) as exc:
        get_suite("nope")
    msg = str(exc.value)
    assert msg.startswith("unknown suite 'nope'; valid suites: ")
    for name in ("smoke", "sst", "harmbench", "xstest"):
        assert name in msg


def test_load_items_checks_every_name_first():
    with pytest.raises(UnknownComponent, match="valid suites"):
        load_items(["smoke", "typo"])


def test_get_suite_tolerates_case_and_spaces():
    assert get_suite(" Smoke ").name == "smoke"


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "3"])
def test_limit_must_be_positive_int(bad):
    with pytest.raises(ValueError, match="limit"):
        load_items("smoke", limit=bad)


def test_limit_and_repeated_names():
    assert [i.item_id for i in load_items("smoke", limit=2)] == ["smoke_001", "smoke_002"]
    assert load_items(["smoke", "smoke"]) == load_items("smoke")  # a repeat would duplicate ids
    assert len(load_items("smoke", limit=10_000)) == len(load_items("smoke"))


def test_no_names_is_an_error():
    with pytest.raises(ValueError, match="no suite names"):
        load_items([])


def test_register_rejects_a_second_class_under_a_taken_name():
    with pytest.raises(ValueError, match="already registered"):
        @register_suite
        class Impostor(Suite):
            name = "smoke"
            kind = "free-text"
            description = source = revision = license = "x"
    assert SUITES["smoke"].load().__name__ == "Smoke"


def test_register_requires_metadata():
    with pytest.raises(ValueError, match="revision"):
        @register_suite
        class NoRevision(Suite):
            name = "no_revision_suite"
            description = source = license = "x"
    assert "no_revision_suite" not in SUITES


def test_register_requires_a_kind():
    """Every suite declares the kind of its items: a judge judges only the suites whose kind it fits."""
    with pytest.raises(ValueError, match="suite 'kindless_suite' .* must declare its kind, one of free-text, "
                                         "free-text-gold, multiple-choice; got None"):
        @register_suite
        class Kindless(Suite):
            name = "kindless_suite"
            description = source = revision = license = "x"
    assert "kindless_suite" not in SUITES


def test_smoke_is_marked_not_comparable_and_bbq_takes_categories():
    assert not SUITES["smoke"].comparable and SUITES["xstest"].comparable
    assert get_suite("bbq", categories=["Age"]).categories == ("Age",)
    with pytest.raises(ValueError, match="has no option 'categoriez'"):
        get_suite("bbq", categoriez=["Age"])
