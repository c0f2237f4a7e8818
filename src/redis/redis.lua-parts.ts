/* The Lua functions several scripts of the Redis store (redis.scripts.ts, redis.asked-scripts.ts) begin with. */

/** The one field of an event stream entry: the message (stores/event-wire.ts). */
export const EVENT_FIELD = 'message';

/**
 * Keeps a key for at least `ms` more (never shortens its TTL). The TTL is set with some slack (up to a minute
 * more), so that most calls are a single PTTL and a busy index key gets a PEXPIRE about once a minute.
 */
export const EXTEND_TTL = `
local function extend(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms + math.min(ms, 60000)) end
end
`;

/**
 * Appends one lifecycle event (a message of stores/event-wire.ts) to the event stream and trims the stream to
 * about its last maxLen events (XADD MAXLEN ~, every event) and to those of about the last maxAgeMs (XTRIM MINID ~,
 * from the time in the id Redis just gave, so app clocks do not matter). "About": Redis trims whole stream nodes
 * (stream-node-max-entries, 100 by default), which keeps trimming cheap. The stream's TTL follows the age cap, so
 * an idle deployment's stream goes away; the age cut runs when that TTL is renewed (EXTEND_TTL's slack: about once a
 * minute on a busy stream, and on the first event after a quiet spell), not for every event, so an event may outlive
 * maxAgeMs by up to a minute. Needs EXTEND_TTL before it; Redis 6.2 or later (MINID). Called by the scripts with the
 * event's five arguments (see EventScriptArgs in redis.event-channel.ts): stream, maxLen, maxAgeMs, message start,
 * message end; the record's v goes between the last two.
 */
export const APPEND_EVENT = `
local function append_event(stream, maxLen, maxAgeMs, message)
  local id = redis.call('XADD', stream, 'MAXLEN', '~', maxLen, '*', '${EVENT_FIELD}', message)
  local age = tonumber(maxAgeMs)
  if redis.call('PTTL', stream) < age then
    local ms = tonumber(string.match(id, '^(%d+)'))
    redis.call('XTRIM', stream, 'MINID', '~', string.format('%.0f', ms - age) .. '-0')
    redis.call('PEXPIRE', stream, age + math.min(age, 60000))
  end
end
`;
