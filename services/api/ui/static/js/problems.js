// Words for the API's problem answers (docs/api.md, "Errors"): what happened and what to do, then its detail.

const ADVICE = {
  missing_token: "Sign in first: the API needs a token.",
  invalid_token: "This token is not known to the API. Sign in again with a valid token.",
  no_seat: "You have no seat at this table: you see its public state only.",
  not_seated: "Only the table's players and the auditor may read this.",
  auditor_cannot_act: "The auditor reads everything but cannot act.",
  not_your_report: "Players may read their own settlement only.",
  table_not_found: "There is no such table.",
  deal_not_found: "There is no such deal at this table.",
  not_your_turn: "It is not your turn.",
  wrong_phase: "That is not possible at this point of the table.",
  seat_taken: "Someone took that seat first.",
  table_full: "The table is full.",
  already_seated: "You are already seated at this table.",
  already_ready: "You already said ready.",
  deal_in_progress: "You cannot do that while a deal is played.",
  table_closed: "The table is closed.",
  version_conflict: "Someone else acted at the same moment; the view is refreshed, choose again.",
  version_mismatch: "The table moved on before your action arrived (another player, or the turn clock); the view is refreshed, choose again.",
  rate_limited: "Too many requests; wait a moment.",
  too_many_requests_at_once: "Too many requests at once; wait a moment.",
  server_busy: "The server is busy; try again in a moment.",
  invalid_client_seed: "A client seed is at most 64 bytes of text.",
  invalid_option: "An option has a value the game does not allow.",
  unknown_option: "The game does not know one of those options.",
  invalid_seats: "The game is not played with that number of seats.",
  validation_error: "The request did not match what the API expects.",
  illegal_action: "That move is against the rules.",
  illegal_lead: "That is not a legal lead.",
  wrong_count: "Play as many cards as were led.",
  card_not_in_hand: "That card is not in your hand.",
};

export function problemMessage(error) {
  if (!error || error.code === undefined) return `Could not reach the API: ${error && error.message ? error.message : error}`;
  const advice = ADVICE[error.code] || "The API refused the request.";
  return `${advice} (${error.status} ${error.code}: ${error.detail})`;
}
