/**
 * The log under a design-B queue, for tests and crash targets that check the queue against it
 * (its synced end, its segments, reads after close). `LogQueue` keeps its log private: a program
 * that appended to it would slip records behind the queue's back, and they would be delivered as
 * messages. Only test code imports this.
 */
export { logOfQueueForTesting } from '../queue/log-queue.js';
