"""``settings``: the phone's Settings. Its root lists the sections; tapping one opens its screen:

* Network: Wi-Fi, Bluetooth and Airplane mode check boxes. Turning Airplane mode on turns Wi-Fi and
  Bluetooth off (as a phone does); turning it off leaves them off, and either can be turned on again
  while it is on (Wi-Fi on a plane).
* Display: a Brightness slider (0-100), a Dark mode check box and a Font size dropdown.
* Sound: a Volume slider (0-100), a Ringtone radio group (the phone's ringtones) and a Vibrate check box.
* About: the Device name field, and the model as a label.

Every control writes its value to the app's store as it changes, so what is on screen is the state:
``{"network": {"wifi", "bluetooth", "airplane"}, "display": {"brightness", "dark_mode", "font_size"},
"sound": {"volume", "ringtones", "ringtone", "vibrate"}, "about": {"device_name", "model"}}``.
A notification's ``target`` is a section's name ("Display"): that section opens above the list.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from cua_bench.sim.controls import Checkbox, Label, RadioGroup, Slider
from cua_bench.sim.lists import Dropdown, ListView
from cua_bench.sim.phone import PhoneApp, Screen, register_phone_app
from cua_bench.sim.textwidgets import TextField
from cua_bench_tasks_sim._phone.words import FIRST_NAMES

if TYPE_CHECKING:
    from cua_bench_tasks_sim._phone.kit import Hand

__all__ = ["FONT_SIZES", "RINGTONES", "SECTIONS", "SettingsApp", "open_section", "sample", "set_box"]

SECTIONS = ("Network", "Display", "Sound", "About")
FONT_SIZES = ("Small", "Default", "Large", "Largest")
RINGTONES = (
    "Aurora", "Beacon", "Bells", "Chimes", "Classic", "Crystal", "Daybreak", "Echo", "Harp", "Lullaby", "Marimba",
    "Meadow", "Piano", "Pulse", "Radar", "Ripple", "Signal", "Sunrise", "Twinkle", "Waves",
)  # fmt: skip
MODELS = ("Pixel 7", "Pixel 8 Pro", "Galaxy S23", "Galaxy A54", "Moto G84", "Nothing Phone 2", "OnePlus 12")


def sample(rng: random.Random, count: int) -> dict[str, Any]:
    """A phone's settings; ``count`` ringtones to choose from (2 to 20: the Sound screen's list)."""
    airplane = rng.random() < 0.2
    ringtones = sorted(rng.sample(RINGTONES, max(2, min(count, len(RINGTONES)))))
    owner = rng.choice(FIRST_NAMES)
    return {
        "network": {
            "wifi": not airplane and rng.random() < 0.7,
            "bluetooth": not airplane and rng.random() < 0.5,
            "airplane": airplane,
        },
        "display": {
            "brightness": rng.randrange(5, 96),
            "dark_mode": rng.random() < 0.5,
            "font_size": rng.choice(FONT_SIZES),
        },
        "sound": {
            "volume": rng.randrange(0, 101),
            "ringtones": ringtones,
            "ringtone": rng.choice(ringtones),
            "vibrate": rng.random() < 0.5,
        },
        "about": {
            "device_name": rng.choice([f"{owner}'s phone", f"{owner}'s Pixel", f"{owner} mobile"]),
            "model": rng.choice(MODELS),
        },
    }


@register_phone_app
class SettingsApp(PhoneApp):
    name = "settings"
    label = "Settings"

    # --- the store: read with defaults, written only when the user changes something -----------

    def _get(self, section: str, key: str, default: Any) -> Any:
        return self.data.get(section, {}).get(key, default)

    def _set(self, section: str, key: str, value: Any) -> None:
        self.data.setdefault(section, {})[key] = value

    # --- screens -----------------------------------------------------------------------------

    def start(self) -> None:
        root = self.screen("Settings")
        root.add(ListView("Settings", list(SECTIONS), on_select=self._picked), fill=True)
        self.push(root)

    def _picked(self, view: ListView) -> None:
        index = view.selected_index
        view.selected_index = None  # a tap opens the section; tapping it again after back opens it again
        if index is not None:
            self.open_section(SECTIONS[index])

    def open_section(self, section: str) -> Screen:
        screen = self.screen(section)
        {"Network": self._network, "Display": self._display, "Sound": self._sound, "About": self._about}[section](
            screen
        )
        return self.push(screen)

    def _network(self, screen: Screen) -> None:
        boxes: dict[str, Checkbox] = {}

        def changed(key: str) -> Any:
            def write(box: Checkbox) -> None:
                self._set("network", key, box.checked)
                if key == "airplane" and box.checked:  # the radios go off with it
                    for radio in ("wifi", "bluetooth"):
                        boxes[radio].checked = False
                        self._set("network", radio, False)

            return write

        for key, text in (("wifi", "Wi-Fi"), ("bluetooth", "Bluetooth"), ("airplane", "Airplane mode")):
            boxes[key] = Checkbox(text, bool(self._get("network", key, False)), on_change=changed(key))
            screen.add(boxes[key])
        screen.add(Label("Airplane mode turns Wi-Fi and Bluetooth off.", size=12))

    def _display(self, screen: Screen) -> None:
        screen.add(
            Slider("Brightness", 0, 100, int(self._get("display", "brightness", 50)), step=1,
                   on_change=lambda s: self._set("display", "brightness", int(s.value))),
            label="Brightness",
        )  # fmt: skip
        screen.add(Checkbox("Dark mode", bool(self._get("display", "dark_mode", False)),
                            on_change=lambda b: self._set("display", "dark_mode", b.checked)))  # fmt: skip
        screen.add(
            Dropdown("Font size", FONT_SIZES, self._get("display", "font_size", "Default"),
                     on_change=lambda d: self._set("display", "font_size", d.selected)),
            label="Font size",
        )  # fmt: skip

    def _sound(self, screen: Screen) -> None:
        screen.add(
            Slider("Volume", 0, 100, int(self._get("sound", "volume", 50)), step=1,
                   on_change=lambda s: self._set("sound", "volume", int(s.value))),
            label="Volume",
        )  # fmt: skip
        screen.add(Label("Ringtone"))
        ringtones = list(self._get("sound", "ringtones", RINGTONES[:4]))
        screen.add(RadioGroup("Ringtone", ringtones, self._get("sound", "ringtone", None),
                              on_change=lambda g: self._set("sound", "ringtone", g.selected)))  # fmt: skip
        screen.add(Checkbox("Vibrate", bool(self._get("sound", "vibrate", False)),
                            on_change=lambda b: self._set("sound", "vibrate", b.checked)))  # fmt: skip

    def _about(self, screen: Screen) -> None:
        name = TextField("Device name", str(self._get("about", "device_name", "")),
                         on_change=lambda f: self._set("about", "device_name", f.text))  # fmt: skip
        screen.add(name, label="Device name")
        screen.add(Label(f"Model: {self._get('about', 'model', 'Phone')}"))

    def open_target(self, target: str) -> None:
        """``target`` is a section's name: its screen opens above the list."""
        if target in SECTIONS:
            while self.pop():
                pass
            self.open_section(target)


# --- the oracle's and the wrong ways' steps (through Hand only; never the phone) ------------------------


async def open_section(hand: Hand, section: str) -> None:
    """Settings in front on ``section`` (where it is open on it already; else back to its list, then in)."""
    await hand.launch("Settings")
    if await hand.shows("window", section):
        return
    while not await hand.shows("list", "Settings"):
        await hand.button("back")
    await hand.tap("listitem", section, within=("list", "Settings"))


async def set_box(hand: Hand, name: str, want: bool) -> None:
    """The check box ``name`` on screen ticked if ``want``, else not (a tap only where it differs)."""
    if await hand.value("checkbox", name) != want:
        await hand.tap("checkbox", name)
