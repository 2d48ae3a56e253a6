"""The landing view, baked into the page.

Most visitors open the Space's plain address. Their view (first suite, its default judge, every
filter at its default, the Leaderboard tab) is the same for all of them until the data changes, so
it is computed once per data version and written into the components' initial values: the page
Gradio serves already shows it, and opening it starts no server event at all. (Measured in
Chromium before this: four queued events per visitor, and a burst of ten visitors waited seconds
behind each other: BENCHMARKS.md, "Space under concurrent clients".)

A visitor with a query string (a shared view) still gets the restore event, and every later
event is computed per session as before. Baking goes through Gradio's own update path: a
component with changed properties is rebuilt from its constructor arguments (what Gradio does
for ``gr.update`` in a session) and the page config is re-rendered from the components.
"""
from __future__ import annotations

import contextvars
import inspect
import threading
from typing import Any

import gradio as gr
from gradio.data_classes import GradioModel, GradioRootModel
from gradio.processing_utils import move_files_to_cache
from gradio.utils import is_prop_update

_bake_lock = threading.Lock()  # one re-render of the page at a time (a refresh racing the timer)

# attributes the rebuilt component must not hand over: identity, rendering, and the events wired to it
_KEEP = {"self", "value", "render", "elem_id", "elem_classes", "key", "preserved_by_key", "load_fn", "every",
         "inputs"}


def bake(blocks: gr.Blocks, components: list, values: list) -> None:
    """Make ``values`` (one per component, as an event would return them: a value, a ``gr.update``
    or ``gr.skip()``) the components' initial state, then re-render the page config served to
    new visitors (sessions already open keep what they have)."""
    if len(components) != len(values):
        raise ValueError(f"bake: {len(components)} components but {len(values)} values")
    with _bake_lock:
        # in an event (a Refresh), Gradio's constructors only record their arguments; baking must build
        # real components, so it runs outside that context
        contextvars.Context().run(lambda: [_apply(c, v) for c, v in zip(components, values)])
        if getattr(blocks, "config", None) is not None:  # before launch(), launch renders it
            blocks.config = blocks.get_config_file()


def _apply(component, value: Any) -> None:
    if not is_prop_update(value):
        _set_value(component, value)
        return
    props = {k: v for k, v in value.items() if k not in ("__type__", "value")}
    if props:
        _set_props(component, props)
    if "value" in value:
        _set_value(component, value["value"])


def _set_props(component, props: dict) -> None:
    if not isinstance(component, gr.components.Component):  # layout blocks (Tabs): plain attributes
        for name, v in props.items():
            setattr(component, name, v)
        return
    kwargs = {**component.constructor_args, **props, "render": False}
    kwargs.pop("value", None)
    fresh = type(component)(**kwargs)  # the constructor normalises props (choices, headers, ...)
    for name in inspect.signature(type(component).__init__).parameters:
        if name not in _KEEP and hasattr(fresh, name):
            setattr(component, name, getattr(fresh, name))
    component.constructor_args.update(props)  # later updates in a session start from these


def _set_value(component, value: Any) -> None:
    """The value as the component's constructor stores it (postprocessed, serialised)."""
    if isinstance(component, gr.State):
        # Not baked: a session copies a State's initial value when it first uses it, which may be after a
        # later re-bake, so a page would pair old visible data with the new value. What the browser must
        # remember about its page (e.g. the data version) lives in a hidden component instead.
        return
    processed = component.postprocess(value)
    if isinstance(processed, (GradioModel, GradioRootModel)):
        processed = processed.model_dump()
    component.value = move_files_to_cache(processed, component, postprocess=True, keep_in_cache=True)
