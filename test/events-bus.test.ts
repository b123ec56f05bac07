/** The library's event bus (src/library/events/bus.ts): ids, the resume ring, and listeners that fail. */
import { describe, expect, test } from 'vitest';
import { EventBus } from '../src/library/events/bus.js';

const changed = (name: string) => ({ name, state: 'custom' as const, etag: '"e"' });

describe('EventBus', () => {
  test('ids count up under one epoch; two buses never share one', () => {
    const a = new EventBus();
    const b = new EventBus();
    expect(a.epoch).not.toBe(b.epoch);
    expect(a.lastId).toBe(`${a.epoch}.0`);
    expect(a.publish('template.changed', changed('x')).id).toBe(`${a.epoch}.1`);
    expect(a.publish('role.changed', changed('y')).id).toBe(`${a.epoch}.2`);
    expect(b.since(a.lastId)).toBeNull();
  });

  test('since() replays after the id; null for future, malformed or dropped ids', () => {
    const bus = new EventBus({ ring: 3 });
    for (const n of ['a', 'b', 'c', 'd', 'e']) bus.publish('template.changed', changed(n));
    const names = (id: string) => bus.since(id)?.map((e) => (e.data as { name: string }).name) ?? null;
    expect(names(`${bus.epoch}.5`)).toEqual([]);
    expect(names(`${bus.epoch}.2`)).toEqual(['c', 'd', 'e']);
    // 1: event 2 is no longer kept, so what came after 1 cannot be told whole
    expect(names(`${bus.epoch}.1`)).toBeNull();
    expect(names(`${bus.epoch}.6`)).toBeNull();
    for (const bad of ['', '5', `${bus.epoch}.`, `${bus.epoch}.-1`, `${bus.epoch}.1e3`, `${bus.epoch}.99999999999999999999`]) expect(names(bad), bad).toBeNull();
  });

  test('a listener that throws does not keep the event from the others; unsubscribe stops delivery', () => {
    const bus = new EventBus();
    const got: string[] = [];
    bus.subscribe(() => {
      throw new Error('broken subscriber');
    });
    const off = bus.subscribe((e) => got.push(e.id));
    bus.publish('proposal.created', { id: 'p', status: 'pending', name: 'x', etag: null, note: null });
    off();
    bus.publish('proposal.created', { id: 'q', status: 'pending', name: 'x', etag: null, note: null });
    expect(got).toEqual([`${bus.epoch}.1`]);
    expect(bus.subscribers).toBe(1);
  });
});
