import pg from 'pg';

/** Connects a client that reports errors through its promises only (never an 'error' crash). */
export async function connect(url: string, timeoutMs = 5_000): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** Settles with `{ done: false }` if `promise` has not settled within `ms`. */
export async function within<T>(
  promise: Promise<T>,
  ms: number,
): Promise<{ done: true; value: T } | { done: false }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), ms);
  });
  try {
    return await Promise.race([promise.then((value) => ({ done: true as const, value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** One query on a fresh connection, closed afterwards. */
export async function queryOnce(url: string, sql: string): Promise<pg.QueryResult> {
  const client = await connect(url);
  try {
    return await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}
