"""The signed bounce address of each email (service.outbox.bounce_address): it names its row
whatever a mail system does to its case, fits a local part, and no other row's address, no
changed signature and no other key's token is read as ours."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from service.outbox.bounce_address import bounce_address, outbox_id_of
from service.tokens import MAX_ID

CONFIG = {"SECRET_KEY": "k" * 48, "SECRET_KEY_FALLBACKS": [], "INBOUND_DOMAIN": "in.bl.test"}
IDS = st.integers(min_value=1, max_value=MAX_ID)


@given(outbox_id=IDS, upper=st.booleans())
def test_an_address_names_its_row(outbox_id: int, upper: bool) -> None:
    address = bounce_address(CONFIG, outbox_id)
    assert address is not None
    assert len(address.partition("@")[0]) <= 64
    assert outbox_id_of(CONFIG, address.upper() if upper else address) == outbox_id


@given(outbox_id=IDS, other=IDS)
def test_another_rows_signature_names_nothing(outbox_id: int, other: int) -> None:
    address = bounce_address(CONFIG, outbox_id)
    assert address is not None
    signature = address.partition("-")[2]
    forged = f"bounces+{other}-{signature}"
    assert outbox_id_of(CONFIG, forged) == (outbox_id if other == outbox_id else None)


@given(outbox_id=IDS, position=st.integers(min_value=0, max_value=31), letter=st.sampled_from("a2"))
def test_a_changed_signature_names_nothing(outbox_id: int, position: int, letter: str) -> None:
    address = bounce_address(CONFIG, outbox_id)
    assert address is not None
    local, _, domain = address.partition("@")
    start = local.index("-") + 1 + position
    changed = local[:start] + letter + local[start + 1 :]
    expected = outbox_id if changed == local else None
    assert outbox_id_of(CONFIG, f"{changed}@{domain}") == expected


def test_rotated_keys_and_other_domains() -> None:
    address = bounce_address(CONFIG, 42)
    assert address is not None
    rotated = {**CONFIG, "SECRET_KEY": "n" * 48, "SECRET_KEY_FALLBACKS": ["k" * 48]}
    assert outbox_id_of(rotated, address) == 42
    assert outbox_id_of({**CONFIG, "SECRET_KEY": "n" * 48}, address) is None
    assert outbox_id_of(CONFIG, address.replace("in.bl.test", "evil.example")) is None
    assert outbox_id_of(CONFIG, address.replace("bounces+", "play+")) is None
    assert bounce_address({**CONFIG, "INBOUND_DOMAIN": None}, 42) is None
