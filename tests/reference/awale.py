"""Independent pure-Python reference for the Awale rule collection and `abapa`.

Written from the rule texts (the Guillions' Awale rule collection, 1996-97, and the Oware
tournament rules), the project's decisions in docs/rules/awale-collection.md and docs/NOTATION.md
only.  Slow and literal on purpose: it exists to be compared with the
Rust core on random games.  Standard library only.

API (all on Griot notation strings)
-----------------------------------
    VARIANTS                      the 17 variant ids
    start(variant) -> position
    legal_moves(position) -> [move]      hole order: South a,b,c.. then North A,B,C..;
                                          ["pass"] when the player must miss the turn;
                                          [] when the game is over
    play(position, move) -> position     the whole turn; ValueError on an illegal move
    outcome(position) -> None | {"winner": "S"|"N"|None,
                                  "score": (south, north), "reason": str}

Position: `<variant> <south>/<north> <store-S>-<store-N> <side> <turns> <flags>`,
flags `-` or a comma list of `cap=S`/`cap=N` then `cycle`.
Reasons returned by outcome(): "board-empty", "few-seeds", "store-over", "stuck",
"none-can-play", "cycle" (relay cut), "turn-limit".

Readings made where the texts + DECISIONS are not explicit
----------------------------------------------------------
R1  "The player can't play any hole" / "None of the players can still play" are checked on
    the position where a player is to move (i.e. after every turn, and at the start).
    "Can play" = has at least one legal move under the variant's own move rules, INCLUDING
    the starving filter ("isn't allowed to starve" can leave a player with seeds but no
    move).  "None can play" = the side to move has no legal move AND the other side would
    have none either if it were to move on the same board.  In variants without a pass
    rule the "can't play" end already covers "none can play"; the distinction only selects
    the reason and the "player who is not stucked" rule (R7).
R2  Pass variants (2-4, Darra, Jodu, Oware, Vai Lung Thlan, Wouri): when the side to move
    cannot play but the other side can, its only move is `pass`: board unchanged, side
    switches, `turns` + 1 (a pass is a turn and counts towards max_turns), flags kept.
    When neither can play the game ends (explicit in Darra/Jodu/Oware/Wouri; from
    DECISIONS for 2-4 and Vai Lung Thlan).
R3  Order of end checks on a position: flag `cycle` (relay cut) first; then the variant's
    own end conditions (board empty / fewer than N seeds / a store > 24 / nobody or the
    mover cannot play); then the turn limit (`turns >= max_turns`).  So a position that
    both ends naturally and reaches the turn limit is scored by the variant's rule.
R4  Endless cycle (relay cut or turn limit) is NOT described by any of the texts, so the
    NOTATION/DECISIONS default applies to every variant: each player takes the seeds on
    their own side.  The variant's "when the game is ended ..." remaining-seeds rule is
    applied only to the ends the text lists.
R5  "The player who performed the last capture" (Darra, Oware, Wouri): the player whose
    capture of at least one seed came last in time, flow captures included, in sowing
    order (so an Oware turn may leave `cap=` naming the mover's opponent).  The flag
    persists across turns without captures and passes.  If nobody has captured yet, each
    player takes the seeds on their own side.  The `cap=` flag is only written for these
    three variants.
R6  "The player who did the last move" (Ot-Tjin, and Adji-Boto's "otherwise"): the player
    who is not to move in the final position; at turn 0 (no move yet) each player takes
    their own side.
R7  "Captured by the player who is not stucked. Otherwise ..." (Adji-Boto, Halusa): if the
    game ended because the side to move cannot play while the other side could, the other
    side takes every remaining seed; in any other end ("none can play", or the board rules)
    the "Otherwise" clause applies.
R8  "If capture doesn't leave any seed to the opponent" (grand slam): evaluated after the
    end-of-sowing capture set is known (flow captures already done): if the opponent's
    row would hold no seed once those holes are emptied, the rule applies, whichever row
    the captured holes are on.  So in Songo Duala a capture on the mover's own row while
    the opponent's row is empty spares the last hole; in Halusa (own-row captures only)
    this can only happen in moves that starving already forbids.  "The capture isn't
    performed at all": no hole is taken, the move stands.  "The last hole isn't captured":
    only the reached (last) hole is spared; chained holes are still taken.
R9  Chains ("the previous holes that also match the criteria"): start at the last hole and
    step backwards (clockwise) one hole at a time; each hole must hold a capture value and
    lie in the capture territory; "without crossing the limits of the territory" also
    stops at the row boundary of the last hole; "without taking in account the
    territorial limits" may cross rows.  The walk is bounded by the ORIGIN OF THE FINAL
    LAP (the hole whose seeds that lap sowed): the origin itself is examined (and taken if
    it matches) but the walk never steps past it; when the last hole is the origin itself
    (a lap of exactly k*2n seeds) there is no chain.  In multiple sowing "previous holes"
    therefore means the holes preceding the last hole on the board, back to that lap's
    origin, whatever lap sowed them.
R10 Multiple sowing: after each lap, if the last hole's new count is not an end value the
    player lifts it (all, or all but one in 2-4) and sows on from the next hole; the
    capture rule is then applied to the last hole of the final lap.  "Starting hole" for
    the skip rule is the origin of the current lap (no variant combines skipping with
    multiple sowing, so this is moot).  Relay cut (NOTATION): after lap 1,000, if the
    sowing would continue, the turn stops with the board as it stands (flow captures
    already made stay made), no end-of-sowing capture, flag `cycle`.
R11 Flow capture: applies when a seed that is not the last seed of its lap makes the hole
    it lands in hold exactly 4 (the lap's origin counts when it is sown into on a full
    lap).  The hole is emptied at once, so later seeds of the same sowing land in it
    again.  Darra/Oware: the owner of the row takes it (either player); Wouri: only holes
    on the mover's opponent's row, taken by the mover.
R12 "An even value" = 2, 4, 6, ...  Adjito's "from 1 to 48" and Dakar's/abapa's
    "more than 24" are kept literally whatever `holes`/`seeds` options are given (the text
    values are not rescaled to the total number of seeds).
R13 Starving: a move "starves" the opponent when the opponent's row holds no seed after the
    whole turn (all laps, flow captures and captures).  "If possible, must not starve":
    when some non-starving move exists only those are legal.  "Isn't allowed to starve":
    starving moves are always illegal (the player may be stuck with seeds).  The minimum
    seeds to play (2 in 2-4 and Adji-Boto) is not part of "starving": one seed suffices.
R14 2-4 / Adji-Boto ("grabs all the seeds but 1"): the seed left in the origin stays there;
    in Adji-Boto the origin (holding it) is skipped on a full lap; in 2-4 it is sown into.
R15 French Wari captures on a last hole made 1 in ANY territory and always takes the
    OPPOSITE hole (so a sowing ending on the opponent's row takes the mover's own hole
    opposite).  Jodu takes both the reached hole and the opposite one, only when the last
    hole is on the mover's row.  Adjito takes only the opposite hole.
R16 Nyakun: any non-empty hole on either row is a move (labelled by the hole); captures go
    to the mover; remaining seeds are counted by nobody.  The commentary ("reach an empty
    hole") is overridden by the rule line ("a value from 1 to 3").
R17 2-4 and Vai Lung Thlan have no remaining-seeds rule: when the game ends with seeds on
    the board by "none can play" (2-4: only single seeds left), those seeds are not counted
    (DECISIONS).  Vai Lung Thlan is sown counter-clockwise (the "clockwise" remark is ignored).
R18 Captures of zero seeds (Adjito/French Wari/Jodu opposite hole empty) are no-ops.
R19 Repetition (third occurrence of a position) needs the game history and is not modelled.

Consequences worth knowing when comparing with the core
-------------------------------------------------------
* Dakar/Halusa: captures can never empty the opponent's row (grand slam rule / own-row
  captures), so a player stuck "with seeds" always faces an empty opponent row, i.e. the
  game ends as "none-can-play"; and in Halusa "the player who is not stucked takes all"
  gives the same score as "each takes his own row".
* Adji-Boto: the "not stuck" and "last move" clauses both name the player not to move.

Places where the texts disagree with themselves (the rule lines were followed)
----------------------------------------------------------------------------
* Nyakun: commentary "reach an empty hole to capture the last sowed seed" vs rule "1 to 3".
* Jodu: commentary "the seeds in the opposite hole are captured" vs rule "the reached hole as
  well as the opposite hole" (French Wari's commentary agrees with the rule).
* French Wari: commentary ("the seed in the player's own territory isn't captured") suggests
  a capture only when ending in one's own row, the rule says "1 in any territory".
* Adji-Boto: commentary "play is from an occupied hole" vs rule "at least 2 seed(s)".
* Oware/Wouri commentaries mention only 4 as the end of the multiple sowing; rules say 1 or 4.
* Halusa: "If capture doesn't leave any seed to the opponent" cannot bite on own-row captures.
"""

from __future__ import annotations

__all__ = ["READINGS", "RULES", "VARIANTS", "legal_moves", "outcome", "play", "start"]

MAX_LAPS = 1000
DEFAULT_MAX_TURNS = 2000


class _EvenValues:
    """Capture values "an even value": 2, 4, 6, ..."""

    def __contains__(self, v):
        return v > 0 and v % 2 == 0

    def __repr__(self):
        return "EVEN"


EVEN = _EvenValues()

# ---------------------------------------------------------------------------------------
# The rules, one hand-written dict per variant.
#
#   seeds           seeds per hole at the start (holes per row default 6 everywhere)
#   playable        "own" row or "any" row
#   min_seeds       a hole must hold at least this many seeds to be played
#   leave_one       the player grabs all the seeds but 1
#   skip_origin     the starting hole is skipped on a full lap
#   starving        None | "if_possible" | "forbidden" | "must_feed" (only when the
#                   opponent's row is empty: only feeding moves are legal, none = stuck)
#   relay_ends      None (single sowing) | values that end the multiple sowing
#   flow            None | "owner" (each player takes 4s on own row) | "mover_opponent_row"
#   capture_values  values of the last hole that trigger a capture
#   capture_side    "opponent" | "own" | "any"  (territory of the last hole, mover's view)
#   capture_target  "reached" | "opposite" | "both"
#   chain           None | "territory" (no row crossing) | "any" (rows may be crossed)
#   grand_slam      None | "no_capture" | "spare_last"
#   end_none_can_play, end_stuck   "none of the players can still play" / "the player can't
#                   play any hole"
#   end_board_empty, end_fewer_than, end_store_over   board/store thresholds
#   pass_when_stuck "When a player can't play, he misses his turn"
#   remaining       who takes the remaining seeds at a (non-cycle) end
# ---------------------------------------------------------------------------------------

# One variant per block, the seed's parameter table kept compact.
# fmt: off
RULES = {
    "2-4": dict(
        seeds=4, playable="own", min_seeds=2, leave_one=True, skip_origin=False,
        starving=None, relay_ends=frozenset({1, 2, 4}), flow=None,
        capture_values=frozenset({2, 4}), capture_side="any", capture_target="reached",
        chain="any", grand_slam=None,
        end_none_can_play=True,  # DECISIONS (pass variant)
        end_stuck=False, end_board_empty=True, end_fewer_than=None, end_store_over=None,
        pass_when_stuck=True, remaining=None,
    ),
    "adji-boto": dict(
        seeds=8, playable="own", min_seeds=2, leave_one=True, skip_origin=True,
        starving="if_possible", relay_ends=None, flow=None,
        capture_values=frozenset({1, 3, 5}), capture_side="opponent", capture_target="reached",
        chain=None, grand_slam=None,
        end_none_can_play=True, end_stuck=True, end_board_empty=False, end_fewer_than=None,
        end_store_over=None, pass_when_stuck=False, remaining="not_stuck_else_last_mover",
    ),
    "adjito": dict(
        seeds=4, playable="own", min_seeds=1, leave_one=False, skip_origin=True,
        starving="if_possible", relay_ends=None, flow=None,
        capture_values=range(1, 49), capture_side="own", capture_target="opposite",
        chain=None, grand_slam="no_capture",
        end_none_can_play=True, end_stuck=True, end_board_empty=False, end_fewer_than=None,
        end_store_over=None, pass_when_stuck=False, remaining="own",
    ),
    "awale": dict(
        seeds=4, playable="own", min_seeds=1, leave_one=False, skip_origin=True,
        starving="if_possible", relay_ends=None, flow=None,
        capture_values=frozenset({2, 3}), capture_side="opponent", capture_target="reached",
        chain="territory", grand_slam="no_capture",
        end_none_can_play=True, end_stuck=True, end_board_empty=False, end_fewer_than=None,
        end_store_over=None, pass_when_stuck=False, remaining="own",
    ),
    "dakar": dict(
        seeds=4, playable="own", min_seeds=1, leave_one=False, skip_origin=True,
        starving="forbidden", relay_ends=None, flow=None,
        capture_values=EVEN, capture_side="opponent", capture_target="reached",
        chain=None, grand_slam="no_capture",
        end_none_can_play=True, end_stuck=True, end_board_empty=False, end_fewer_than=None,
        end_store_over=24, pass_when_stuck=False, remaining="own",
    ),
    "darra": dict(
        seeds=4, playable="own", min_seeds=1, leave_one=False, skip_origin=False,
        starving=None, relay_ends=None, flow="owner",
        capture_values=frozenset({4}), capture_side="any", capture_target="reached",
        chain=None, grand_slam=None,
        end_none_can_play=True, end_stuck=False, end_board_empty=False, end_fewer_than=5,
        end_store_over=None, pass_when_stuck=True, remaining="last_capturer",
    ),
    "french-wari": dict(
        seeds=4, playable="own", min_seeds=1, leave_one=False, skip_origin=False,
        starving="if_possible", relay_ends=frozenset({1}), flow=None,
        capture_values=frozenset({1}), capture_side="any", capture_target="opposite",
        chain=None, grand_slam="no_capture",
        end_none_can_play=True, end_stuck=True, end_board_empty=False, end_fewer_than=None,
        end_store_over=None, pass_when_stuck=False, remaining="own",
    ),
    "halusa": dict(
        seeds=6, playable="own", min_seeds=1, leave_one=False, skip_origin=False,
        starving="forbidden", relay_ends=None, flow=None,
        capture_values=EVEN, capture_side="own", capture_target="reached",
        chain="territory", grand_slam="spare_last",
        end_none_can_play=True, end_stuck=True, end_board_empty=False, end_fewer_than=None,
        end_store_over=None, pass_when_stuck=False, remaining="not_stuck_else_own",
    ),
    "jodu": dict(
        seeds=4, playable="own", min_seeds=1, leave_one=False, skip_origin=False,
        starving=None, relay_ends=frozenset({1}), flow=None,
        capture_values=frozenset({1}), capture_side="own", capture_target="both",
        chain=None, grand_slam=None,
        end_none_can_play=True, end_stuck=False, end_board_empty=False, end_fewer_than=1,
        end_store_over=None, pass_when_stuck=True, remaining="own",
    ),
    "kale": dict(
        seeds=4, playable="own", min_seeds=1, leave_one=False, skip_origin=True,
        starving="if_possible", relay_ends=None, flow=None,
        capture_values=frozenset({2, 4}), capture_side="opponent", capture_target="reached",
        chain="territory", grand_slam="no_capture",
        end_none_can_play=True, end_stuck=True, end_board_empty=False, end_fewer_than=None,
        end_store_over=None, pass_when_stuck=False, remaining="own",
    ),
    "nyakun": dict(
        seeds=4, playable="any", min_seeds=1, leave_one=False, skip_origin=False,
        starving=None, relay_ends=None, flow=None,
        capture_values=frozenset({1, 2, 3}), capture_side="any", capture_target="reached",
        chain="any", grand_slam=None,
        end_none_can_play=True, end_stuck=True, end_board_empty=False, end_fewer_than=None,
        end_store_over=None, pass_when_stuck=False, remaining="nobody",
    ),
    "ot-tjin": dict(
        seeds=3, playable="own", min_seeds=1, leave_one=False, skip_origin=False,
        starving=None, relay_ends=frozenset({1, 3}), flow=None,
        capture_values=frozenset({3}), capture_side="any", capture_target="reached",
        chain=None, grand_slam=None,
        end_none_can_play=True, end_stuck=True, end_board_empty=False, end_fewer_than=None,
        end_store_over=None, pass_when_stuck=False, remaining="last_mover",
    ),
    "oware": dict(
        seeds=4, playable="own", min_seeds=1, leave_one=False, skip_origin=False,
        starving=None, relay_ends=frozenset({1, 4}), flow="owner",
        capture_values=frozenset({4}), capture_side="any", capture_target="reached",
        chain=None, grand_slam=None,
        end_none_can_play=True, end_stuck=False, end_board_empty=False, end_fewer_than=5,
        end_store_over=None, pass_when_stuck=True, remaining="last_capturer",
    ),
    "songo-duala": dict(
        seeds=8, playable="own", min_seeds=1, leave_one=False, skip_origin=True,
        starving="if_possible", relay_ends=None, flow=None,
        capture_values=frozenset({2, 3, 4}), capture_side="any", capture_target="reached",
        chain="territory", grand_slam="spare_last",
        end_none_can_play=True, end_stuck=True, end_board_empty=False, end_fewer_than=None,
        end_store_over=None, pass_when_stuck=False, remaining="own",
    ),
    "vai-lung-thlan": dict(
        seeds=5, playable="own", min_seeds=1, leave_one=False, skip_origin=False,
        starving=None, relay_ends=None, flow=None,
        capture_values=frozenset({1}), capture_side="any", capture_target="reached",
        chain="any", grand_slam=None,
        end_none_can_play=True,  # DECISIONS (pass variant)
        end_stuck=False, end_board_empty=True, end_fewer_than=None, end_store_over=None,
        pass_when_stuck=True, remaining=None,
    ),
    "wouri": dict(
        seeds=4, playable="own", min_seeds=1, leave_one=False, skip_origin=False,
        starving=None, relay_ends=frozenset({1, 4}), flow="mover_opponent_row",
        capture_values=frozenset({4}), capture_side="any", capture_target="reached",
        chain=None, grand_slam=None,
        end_none_can_play=True, end_stuck=False, end_board_empty=False, end_fewer_than=5,
        end_store_over=None, pass_when_stuck=True, remaining="last_capturer",
    ),
    # International Oware tournament rules (from the brief).
    # "Must feed when possible" in the tournament rules: when the opponent has no seed the
    # player must give them some; with no such move the game ends (the player cannot move).
    "abapa": dict(
        seeds=4, playable="own", min_seeds=1, leave_one=False, skip_origin=True,
        starving="must_feed", relay_ends=None, flow=None,
        capture_values=frozenset({2, 3}), capture_side="opponent", capture_target="reached",
        chain="territory", grand_slam="no_capture",
        end_none_can_play=True, end_stuck=True, end_board_empty=False, end_fewer_than=None,
        end_store_over=24, pass_when_stuck=False, remaining="own",
    ),
}

# Readings of other written sources (docs/rules/readings.md), each the collection's game with the
# points that source reads differently.  Keys beyond the table above:
#   end_result      "scores" (default) | "draw" | ("mover_wins_below", N or "start_row"): the
#                   result when the player to move cannot play
#   neither_draw    when neither player can play, the game is a draw
#   chain_before_origin  the capture chain stops before the final lap's origin hole
#   chain_max       the chain takes at most this many holes after the last hole
#   starve_per_lap  the starving rule is judged after every lap as well as after the turn
#   lap_cut_ends_game  (with starve_per_lap) a later lap is judged with its capture; the first
#                   that would leave the opponent's row empty is not sown, the turn ends with the
#                   lap before (no capture), and the game is over: flag `lap-cut`, reason
#                   "lap-cut", the scores decide with the remaining seeds shared as usual
#   chain_past_origin  the capture chain goes on past the final lap's origin hole, stopping
#                   only on coming back round to the hole it started from
#   relay_own_ends  the counts ending a multiple sowing in the mover's own row (relay_ends then
#                   count in the opponent's row)
#   holes           holes a row by default (6 when absent)
#   first_into_origin  all seeds are lifted and the first goes back into the hole they came from
#   opening_each_once  each player must sow each own hole once before sowing any a second time;
#                   the position lists the holes still to sow (flag `opening=`); when none of
#                   them can be played, any hole may be
#   no_capture_turns  the first this-many turns of the game capture nothing
#   capture_after_last  the capture judges the hole after the last hole (sowing direction) on
#                   its own count; the chain then walks forward from it (chain_forward)
#   chain_forward   the chain walks in the sowing direction instead of backwards
READINGS_RULES = {
    # Ludii's Aw-li On-nam Ot-tjin: both players stuck is a draw.
    "ot-tjin-ludii": dict(RULES["ot-tjin"], neither_draw=True),
    # Ludii's Halusa: the chain of previous holes stops before the origin hole.
    "halusa-ludii": dict(RULES["halusa"], chain_before_origin=True),
    # Ludii's J'odu: the opponent must have seeds after every lap.
    "jodu-ludii": dict(RULES["jodu"], starving="forbidden", starve_per_lap=True, lap_cut_ends_game=True),
    # Ludii's Wouri: a lap ending on 4 in the mover's row relays on; legality judged per lap.
    "wouri-ludii": dict(
        RULES["wouri"],
        relay_own_ends=frozenset({1}),
        starving="forbidden",
        starve_per_lap=True,
        lap_cut_ends_game=True,
    ),
    # Ludii's Adjiboto (after Herskovits 1929): 2x5 of ten, the first seed back into the origin,
    # an opening sowing each hole once with no capture on the first turn, captures of 1, 3, 5
    # judged on the hole after the last and chained forward over both rows, and a stuck player
    # losing below 50 captured seeds (otherwise a draw).
    "adji-boto-ludii": dict(
        holes=5, seeds=10, playable="own", min_seeds=2, leave_one=False, skip_origin=False,
        first_into_origin=True, opening_each_once=True, no_capture_turns=1,
        starving=None, relay_ends=None, flow=None,
        capture_values=frozenset({1, 3, 5}), capture_side="any", capture_target="reached",
        capture_after_last=True, chain="any", chain_forward=True, chain_past_origin=True,
        grand_slam=None,
        end_none_can_play=True, end_stuck=True, end_board_empty=False, end_fewer_than=None,
        end_store_over=None, pass_when_stuck=False, remaining="own",
        end_result=("mover_wins_below", "start_row"),
    ),
}
RULES.update(READINGS_RULES)
# fmt: on

#: The readings' variant ids.
READINGS = list(READINGS_RULES)

VARIANTS = [
    "2-4",
    "adji-boto",
    "adjito",
    "awale",
    "dakar",
    "darra",
    "french-wari",
    "halusa",
    "jodu",
    "kale",
    "nyakun",
    "ot-tjin",
    "oware",
    "songo-duala",
    "vai-lung-thlan",
    "wouri",
    "abapa",
]

_FLOW_VALUE = 4  # "The flow capture is performed for any hole containing 4 stone(s)."
_SIDES = ("S", "N")


# ---------------------------------------------------------------------------------------
# Variant strings and positions
# ---------------------------------------------------------------------------------------


def _parse_variant(text):
    """Return (id, options dict with holes/seeds/max_turns filled in)."""
    if "(" in text:
        if not text.endswith(")"):
            raise ValueError(f"variant {text!r}: missing ')'")
        vid, body = text[:-1].split("(", 1)
        items = body.split(",") if body else []
    else:
        vid, items = text, []
    if vid not in RULES:
        raise ValueError(f"variant {text!r}: unknown id {vid!r}")
    opts = {
        "holes": RULES[vid].get("holes", 6),
        "seeds": RULES[vid]["seeds"],
        "max_turns": DEFAULT_MAX_TURNS,
    }
    seen = set()
    for item in items:
        if "=" not in item:
            raise ValueError(f"variant {text!r}: option {item!r} is not key=value")
        key, value = item.split("=", 1)
        if key not in opts:
            raise ValueError(f"variant {text!r}: unknown option {key!r}")
        if key in seen:
            raise ValueError(f"variant {text!r}: option {key!r} given twice")
        seen.add(key)
        if not value.isdigit():
            raise ValueError(f"variant {text!r}: option {key!r}: {value!r} is not a number")
        opts[key] = int(value)
    if not 1 <= opts["holes"] <= 26:
        raise ValueError(f"variant {text!r}: holes must be 1..26")
    if opts["seeds"] < 1:
        raise ValueError(f"variant {text!r}: seeds must be at least 1")
    if opts["max_turns"] < 1:
        raise ValueError(f"variant {text!r}: max_turns must be at least 1")
    return vid, opts


def _canonical_variant(vid, opts):
    defaults = {
        "holes": RULES[vid].get("holes", 6),
        "seeds": RULES[vid]["seeds"],
        "max_turns": DEFAULT_MAX_TURNS,
    }
    parts = [f"{k}={opts[k]}" for k in sorted(opts) if opts[k] != defaults[k]]
    return vid + (f"({','.join(parts)})" if parts else "")


class _State:
    """A parsed position.  board[0..n) = South a.., board[n..2n) = North A.."""

    def __init__(self, vid, opts, board, stores, side, turns, cap, cycle, opening=frozenset(), lapcut=False):
        self.vid = vid
        self.opts = opts
        self.rules = RULES[vid]
        self.n = opts["holes"]
        self.board = list(board)
        self.stores = list(stores)
        self.side = side  # 0 = South, 1 = North (to move)
        self.turns = turns
        self.cap = cap  # None, 0 or 1: last capturer (written only where needed)
        self.cycle = cycle
        self.opening = frozenset(opening)  # holes still to sow in the opening
        self.lapcut = lapcut  # the game ended at a lap that was not sown (lap_cut_ends_game)

    def format(self):
        n = self.n
        south = ",".join(str(x) for x in self.board[:n])
        north = ",".join(str(x) for x in self.board[n:])
        flags = []
        if self.cap is not None and self.rules["remaining"] == "last_capturer":
            flags.append("cap=" + _SIDES[self.cap])
        if self.opening:
            flags.append("opening=" + "".join(_label(n, i) for i in sorted(self.opening)))
        if self.cycle:
            flags.append("cycle")
        if self.lapcut:
            flags.append("lap-cut")
        return (
            f"{_canonical_variant(self.vid, self.opts)} {south}/{north} "
            f"{self.stores[0]}-{self.stores[1]} {_SIDES[self.side]} {self.turns} "
            f"{','.join(flags) if flags else '-'}"
        )


def _parse_position(text):
    fields = text.split(" ")
    if len(fields) != 6:
        raise ValueError(f"position {text!r}: expected 6 fields, got {len(fields)}")
    vid, opts = _parse_variant(fields[0])
    n = opts["holes"]
    rows = fields[1].split("/")
    if len(rows) != 2:
        raise ValueError("field 2 (board): expected <south>/<north>")
    board = []
    for name, row in zip(("South", "North"), rows, strict=True):
        cells = row.split(",")
        if len(cells) != n:
            raise ValueError(f"field 2 (board): {name} has {len(cells)} holes, expected {n}")
        for i, c in enumerate(cells):
            if not c.isdigit():
                raise ValueError(f'field 2 (board): hole {i + 1} of {name}: "{c}" is not a number')
            board.append(int(c))
    stores = fields[2].split("-")
    if len(stores) != 2 or not all(s.isdigit() for s in stores):
        raise ValueError(f"field 3 (stores): {fields[2]!r} is not <S>-<N>")
    if fields[3] not in _SIDES:
        raise ValueError(f"field 4 (side): {fields[3]!r} is not S or N")
    if not fields[4].isdigit():
        raise ValueError(f"field 5 (turns): {fields[4]!r} is not a number")
    cap, cycle, opening, lapcut = None, False, set(), False
    if fields[5] != "-":
        for flag in fields[5].split(","):
            if flag.startswith("opening=") and RULES[vid].get("opening_each_once"):
                opening = {_index(n, c) for c in flag[len("opening=") :]}
            elif flag == "cap=S":
                cap = 0
            elif flag == "cap=N":
                cap = 1
            elif flag == "cycle":
                cycle = True
            elif flag == "lap-cut" and RULES[vid].get("lap_cut_ends_game"):
                lapcut = True
            else:
                raise ValueError(f"field 6 (flags): unknown flag {flag!r}")
    return _State(
        vid,
        opts,
        board,
        [int(s) for s in stores],
        _SIDES.index(fields[3]),
        int(fields[4]),
        cap,
        cycle,
        opening,
        lapcut,
    )


def _label(n, i):
    return chr(ord("a") + i) if i < n else chr(ord("A") + i - n)


def _index(n, label):
    if len(label) == 1:
        if "a" <= label <= "z" and ord(label) - ord("a") < n:
            return ord(label) - ord("a")
        if "A" <= label <= "Z" and ord(label) - ord("A") < n:
            return n + ord(label) - ord("A")
    raise ValueError(f"move {label!r}: not a hole of this board")


# ---------------------------------------------------------------------------------------
# Board helpers
# ---------------------------------------------------------------------------------------


def _row_of(n, i):
    """0 if hole i is on South's row, 1 if on North's."""
    return 0 if i < n else 1


def _row_holes(n, side):
    return range(0, n) if side == 0 else range(n, 2 * n)


def _row_total(board, n, side):
    return sum(board[i] for i in _row_holes(n, side))


def _in_territory(rules, n, hole, mover, key):
    where = rules[key]
    if where == "any":
        return True
    if where == "own":
        return _row_of(n, hole) == mover
    return _row_of(n, hole) != mover  # "opponent"


# ---------------------------------------------------------------------------------------
# One whole turn
# ---------------------------------------------------------------------------------------


def _turn(st, mover, origin):
    """Play the sowing from `origin` for `mover`; return (board, stores, cap, cut, starved, lapcut).

    `starved`: the rules judge starving after every lap and the first lap left the opponent's row
    empty.  A later lap that would leave it empty is not sown: the turn ends with the lap before.
    `lapcut`: with lap_cut_ends_game, a later lap (its capture included) was not sown."""
    r = st.rules
    n = st.n
    size = 2 * n
    board = list(st.board)
    stores = list(st.stores)
    cap = st.cap

    lap = 1
    lap_origin = origin
    hand = board[origin] - 1 if r["leave_one"] else board[origin]
    board[origin] -= hand
    pos = origin
    if r.get("first_into_origin"):
        board[origin] += 1  # the first seed goes back where the seeds came from
        hand -= 1
    cut = False
    starved = False
    before = None  # the board before the current lap, with the last hole and origin of the lap before
    while True:
        # --- one lap --------------------------------------------------------------
        while hand > 0:
            pos = (pos + 1) % size
            if r["skip_origin"] and pos == lap_origin:
                continue
            board[pos] += 1
            hand -= 1
            if hand > 0 and r["flow"] is not None and board[pos] == _FLOW_VALUE:
                row = _row_of(n, pos)
                if r["flow"] == "owner":
                    taker = row
                elif row != mover:  # "mover_opponent_row"
                    taker = mover
                else:
                    taker = None
                if taker is not None:
                    stores[taker] += board[pos]
                    board[pos] = 0
                    cap = taker
        last = pos
        if r.get("starve_per_lap") and _row_total(board, n, 1 - mover) == 0:
            if before is None:
                starved = True
            else:
                board, stores, cap, last, lap_origin = before
                if r.get("lap_cut_ends_game"):
                    return board, stores, cap, False, starved, True
                break
        # --- does the (multiple) sowing go on? ------------------------------------
        ends = r["relay_ends"]
        if r.get("relay_own_ends") is not None and _row_of(n, last) == mover:
            ends = r["relay_own_ends"]  # a reading whose own row ends on other counts
        if ends is None or board[last] in ends:
            break
        if lap == MAX_LAPS:
            cut = True
            break
        if r.get("starve_per_lap"):
            before = (list(board), list(stores), cap, last, lap_origin)
        lap += 1
        lap_origin = last
        hand = board[last] - 1 if r["leave_one"] else board[last]
        assert hand > 0
        board[last] -= hand

    if cut:
        return board, stores, cap, True, starved, False
    if r.get("lap_cut_ends_game") and before is not None:
        # The final lap's capture belongs to it: if it would empty the opponent's row, the lap is
        # not sown and the game ends after the lap before.
        kept = (list(before[0]), list(before[1]), before[2])
        result = _capture(st, mover, board, stores, cap, last, lap_origin, starved)
        if _row_total(result[0], n, 1 - mover) == 0:
            return kept[0], kept[1], kept[2], False, starved, True
        return result
    return _capture(st, mover, board, stores, cap, last, lap_origin, starved)


def _capture(st, mover, board, stores, cap, last, lap_origin, starved):
    """The end-of-sowing capture on `board` after a sowing whose final lap ended in `last`."""
    r = st.rules
    n = st.n
    size = 2 * n

    # --- end-of-sowing capture ----------------------------------------------------
    def matches(h):
        return board[h] in r["capture_values"] and _in_territory(r, n, h, mover, "capture_side")

    if st.turns < r.get("no_capture_turns", 0):
        return board, stores, cap, False, starved, False
    if r.get("capture_after_last"):
        last = (last + 1) % size  # the hole after the last one is judged
    step = 1 if r.get("chain_forward") else -1
    if not matches(last):
        return board, stores, cap, False, starved, False

    target = r["capture_target"]
    if target == "reached":
        taken = [last]
    elif target == "opposite":
        taken = [size - 1 - last]
    else:  # "both"
        taken = [last, size - 1 - last]

    if r["chain"] is not None:
        past = r.get("chain_past_origin")
        h = last
        chained = 0
        while past or h != lap_origin:  # never step past the final lap's origin, unless past
            h = (h + step) % size
            if h == last:
                break  # come back round to where the chain started
            if h == lap_origin and r.get("chain_before_origin"):
                break  # a reading whose chain stops before the origin hole
            if chained == r.get("chain_max"):
                break
            if r["chain"] == "territory" and _row_of(n, h) != _row_of(n, last):
                break
            if not matches(h):
                break
            taken.append(h)
            chained += 1

    opponent = 1 - mover
    left_to_opponent = sum(board[i] for i in _row_holes(n, opponent) if i not in taken)
    if left_to_opponent == 0:
        if r["grand_slam"] == "no_capture":
            taken = []
        elif r["grand_slam"] == "spare_last":
            taken = [h for h in taken if h != last]

    gained = 0
    for h in dict.fromkeys(taken):  # each hole once
        gained += board[h]
        board[h] = 0
    if gained > 0:
        stores[mover] += gained
        cap = mover
    return board, stores, cap, False, starved, False


def _candidate_holes(st, side):
    r = st.rules
    n = st.n
    holes = range(2 * n) if r["playable"] == "any" else _row_holes(n, side)
    cands = [i for i in holes if st.board[i] >= r["min_seeds"]]
    if r.get("opening_each_once") and any(i in st.opening for i in cands):
        cands = [i for i in cands if i in st.opening]  # each hole once before any twice
    return cands


def _moves_for(st, side):
    """Legal sowing holes for `side` on st's board, ignoring end conditions and passing."""
    cands = _candidate_holes(st, side)
    starving = st.rules["starving"]
    if starving is None:
        return cands
    n = st.n
    feeding = []
    for h in cands:
        board, _, _, _, starved, _ = _turn(st, side, h)
        if _row_total(board, n, 1 - side) > 0 and not starved:
            feeding.append(h)
    if starving == "forbidden":
        return feeding
    if starving == "must_feed":
        return feeding if _row_total(st.board, n, 1 - side) == 0 else cands
    return feeding if feeding else cands  # "if_possible"


# ---------------------------------------------------------------------------------------
# End of game
# ---------------------------------------------------------------------------------------


def _natural_end(st):
    """The variant's own end condition met by the position, or None."""
    r = st.rules
    total = sum(st.board)
    if r["end_board_empty"] and total == 0:
        return "board-empty"
    if r["end_fewer_than"] is not None and total < r["end_fewer_than"]:
        return "few-seeds"
    if r["end_store_over"] is not None and max(st.stores) > r["end_store_over"]:
        return "store-over"
    if not _moves_for(st, st.side):
        other_can = bool(_moves_for(st, 1 - st.side))
        if not other_can and r["end_none_can_play"]:
            return "none-can-play"
        if r["pass_when_stuck"]:
            return None  # the player to move passes
        if r["end_stuck"]:
            return "stuck"
    return None


def _end_reason(st):
    if st.cycle:
        return "cycle"
    if st.lapcut:
        return "lap-cut"
    reason = _natural_end(st)
    if reason is not None:
        return reason
    if st.turns >= st.opts["max_turns"]:
        return "turn-limit"
    return None


def _share_remaining(st, reason):
    """Scores (south, north) after the remaining seeds are shared out."""
    n = st.n
    own = [_row_total(st.board, n, 0), _row_total(st.board, n, 1)]
    total = own[0] + own[1]
    s = list(st.stores)

    def give_all(side):
        s[side] += total

    def each_own():
        s[0] += own[0]
        s[1] += own[1]

    def last_mover():
        if st.turns == 0:
            each_own()
        else:
            give_all(1 - st.side)

    rule = st.rules["remaining"]
    if reason in ("cycle", "turn-limit"):
        each_own()  # R4
    elif rule == "own":
        each_own()
    elif rule == "nobody" or rule is None:
        pass
    elif rule == "last_capturer":
        if st.cap is None:
            each_own()  # R5
        else:
            give_all(st.cap)
    elif rule == "last_mover":
        last_mover()
    elif rule in ("not_stuck_else_last_mover", "not_stuck_else_own"):
        if reason == "stuck":
            give_all(1 - st.side)  # the player not stuck
        elif rule == "not_stuck_else_last_mover":
            last_mover()
        else:
            each_own()
    else:
        raise AssertionError(rule)
    return s[0], s[1]


# ---------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------


def start(variant: str) -> str:
    vid, opts = _parse_variant(variant)
    n = opts["holes"]
    opening = range(2 * n) if RULES[vid].get("opening_each_once") else ()
    st = _State(vid, opts, [opts["seeds"]] * (2 * n), [0, 0], 0, 0, None, False, opening)
    return st.format()


def legal_moves(position: str) -> list[str]:
    st = _parse_position(position)
    if _end_reason(st) is not None:
        return []
    moves = _moves_for(st, st.side)
    if not moves:
        return ["pass"]  # only reachable in pass variants (otherwise the game is over)
    return [_label(st.n, i) for i in moves]


def play(position: str, move: str) -> str:
    st = _parse_position(position)
    legal = legal_moves(position)
    if move not in legal:
        raise ValueError(f"illegal move {move!r} in {position!r}; legal: {legal}")
    mover = st.side
    if move == "pass":
        new = _State(st.vid, st.opts, st.board, st.stores, 1 - mover, st.turns + 1, st.cap, False, st.opening)
        return new.format()
    hole = _index(st.n, move)
    board, stores, cap, cut, _, lapcut = _turn(st, mover, hole)
    opening = st.opening - {hole}
    new = _State(st.vid, st.opts, board, stores, 1 - mover, st.turns + 1, cap, cut, opening, lapcut)
    return new.format()


def _winner(st, reason, south, north):
    """The winner's letter or None (a draw): the scores decide unless a reading's end says otherwise."""
    by_score = "S" if south > north else "N" if north > south else None
    r = st.rules
    if reason not in ("stuck", "none-can-play"):
        return by_score
    if reason == "none-can-play" and r.get("neither_draw"):
        return None
    result = r.get("end_result", "scores")
    if result == "draw":
        return None
    if isinstance(result, tuple):  # ("mover_wins_below", threshold)
        threshold = result[1]
        if threshold == "start_row":
            threshold = st.n * st.opts["seeds"]
        stuck = st.side  # the player to move cannot play; the other moved last
        return _SIDES[1 - stuck] if st.stores[stuck] < threshold else None
    return by_score


def outcome(position: str):
    st = _parse_position(position)
    reason = _end_reason(st)
    if reason is None:
        return None
    south, north = _share_remaining(st, reason)
    winner = _winner(st, reason, south, north)
    return {"winner": winner, "score": (south, north), "reason": reason}
