"""Chat: a send answered pending, confirmed by chat.messageState; pushes from chat.subscribe."""
from conftest import MEMORY

ROOM = "dm-u0-u1"


def test_send_is_pending_then_sent(start):
    host = start(*MEMORY)
    answer = host.call("chat.send", {"roomId": ROOM, "text": "Lunch?", "clientMessageId": "py-1"})
    assert answer["message"]["state"] == "pending"
    state = host.next_notification("chat.messageState")
    assert state["clientMessageId"] == "py-1" and state["state"] == "sent"


def test_subscription_pushes_the_message_and_the_peers_reply(start):
    host = start(*MEMORY)
    subscription = host.call("chat.subscribe", {"roomId": ROOM})
    host.call("chat.send", {"roomId": ROOM, "text": "Are you there?", "clientMessageId": "py-2"})
    mine = host.next_notification("chat.message")
    assert mine["subscriptionId"] == subscription["subscriptionId"]
    assert mine["message"]["text"] == "Are you there?" and mine["message"]["senderId"] == "u0"
    reply = host.next_notification("chat.message")
    assert reply["message"]["senderId"] == "u1" and reply["message"]["roomId"] == ROOM


def test_a_repeated_client_message_id_is_a_duplicate(start):
    host = start(*MEMORY)
    params = {"roomId": ROOM, "text": "once", "clientMessageId": "py-3"}
    host.call("chat.send", params)
    assert host.next_notification("chat.messageState")["state"] == "sent"
    again = host.call("chat.send", params)
    assert again["message"]["duplicate"] is True
