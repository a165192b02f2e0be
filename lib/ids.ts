const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a UUID in any case (the database stores them lower-case). */
export const isUuid = (value: string) => UUID.test(value);
