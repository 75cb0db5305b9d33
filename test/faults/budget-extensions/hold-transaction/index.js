// Fault-suite hook: an update of `notes` to the title "hold" waits HOLD_TRANSACTION_MS (default 4000) in its filter,
// which for an update by query runs inside the write's transaction, after the matching keys were read: a handler
// awaiting something slow while holding a transaction (its locks and its pool connection).
export default ({ filter }) => {
  filter('notes.items.update', async (payload) => {
    if (payload?.title === 'hold') await new Promise((resolve) => setTimeout(resolve, Number(process.env.HOLD_TRANSACTION_MS ?? 4000)));
    return payload;
  });
};
