"""What players are to each other, apart from their games: who blocks whom
(``service.players.blocks``). A foundation package: it reads ``service.models`` and nothing of
the games, so the game store, challenges and messages can all ask it."""
