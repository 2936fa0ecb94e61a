"""What others learn of an action (server/tables/states.py public_action): never the face-down
cards."""

from __future__ import annotations

from server.tables.states import public_action


def test_bury_and_unknown_hide_their_cards_from_everyone_else() -> None:
    bury = {"seat": 2, "action": "bury", "cards": ["7H", "8S"]}
    assert public_action(bury, 2) == bury
    for viewer in (0, 1, 3, 4, None):
        assert public_action(bury, viewer) == {"seat": 2, "action": "bury"}
    unknown = {"seat": 1, "action": "unknown", "card": "AC", "under": "7D"}
    assert public_action(unknown, 1) == unknown
    assert public_action(unknown, None) == {"seat": 1, "action": "unknown", "card": "AC"}


def test_face_up_actions_are_shown_as_they_are() -> None:
    for action in (
        {"seat": 0, "action": "play", "card": "QC"},
        {"seat": 0, "action": "call", "card": "AH"},
        {"seat": 3, "action": "pass"},
        {"seat": 3, "action": "pick"},
        {"seat": 3, "action": "alone"},
    ):
        assert public_action(action, None) == action
        assert public_action(action, 1) == action
    assert public_action(None, 0) is None
