// Assembles the local provider: its checkout sessions and subscriptions, its webhook deliveries and
// its billing job (renewals due by the billing clock, then deliveries).
import type { Logger } from "pino";
import type { BackgroundTasks } from "../../background.ts";
import type { Catalogue, CustomerStore } from "../../billing/ports/payment-provider.ts";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/types.ts";
import { newStripeId } from "../stripe/format.ts";
import { type OffsetClock, readClockOffset } from "./billing-clock.ts";
import { createDeliverer, type Deliverer, type SendWebhook } from "./deliveries.ts";
import {
  type CloseDisputeResult,
  closeDispute,
  type DisputePaymentResult,
  disputePayment,
} from "./disputes.ts";
import { createLocalProvider, type LocalProvider } from "./local-provider.ts";
import { seconds } from "./stripe-objects.ts";

export interface LocalPayments {
  provider: LocalProvider;
  deliverer: Deliverer;
  /** The offset clock `billing:advance` moves; absent in tests (they move a ManualClock). */
  offsetClock: OffsetClock | undefined;
  /** Renewals and other period ends due by the billing clock, then every due delivery. */
  runJob(): Promise<{ billed: number; delivered: number }>;
  /** Delivers what was just queued, after the answer (a checkout paid, a plan changed). */
  deliverSoon(): void;
  /** Disputes an earlier payment of the stand-in, by invoice number, and delivers the event (disputes.ts). */
  disputePayment(invoiceNumber: string): Promise<DisputePaymentResult>;
  /** Ends a dispute of the stand-in (its id, or its payment's invoice number) as `status` says, and delivers its event. */
  closeDispute(ref: string, status: "won" | "lost"): Promise<CloseDisputeResult>;
}

const eventMeta = (now: Date) => ({ eventId: newStripeId("evt"), created: seconds(now) });

export function createLocalPayments(deps: {
  db: Db;
  clock: Clock;
  offsetClock?: OffsetClock | undefined;
  logger: Logger;
  tasks: BackgroundTasks;
  catalogue: Catalogue;
  checkoutBaseUrl: string;
  /** The seller's country: decides the VAT the hosted page adds. */
  sellerCountry: string;
  webhookSecret: string;
  customers: CustomerStore;
  send: SendWebhook;
}): LocalPayments {
  const provider = createLocalProvider({
    db: deps.db,
    clock: deps.clock,
    catalogue: deps.catalogue,
    checkoutBaseUrl: deps.checkoutBaseUrl,
    sellerCountry: deps.sellerCountry,
    webhookSecret: deps.webhookSecret,
    customers: deps.customers,
  });
  const deliverer = createDeliverer({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    secret: deps.webhookSecret,
    send: deps.send,
  });
  return {
    provider,
    deliverer,
    offsetClock: deps.offsetClock,
    async runJob() {
      // Another instance (or billing:advance) may have moved the clock.
      if (deps.offsetClock) deps.offsetClock.setOffset(await readClockOffset(deps.db));
      const billed = await provider.runBillingCycle();
      const delivered = await deliverer.deliverDue();
      return { billed, delivered };
    },
    deliverSoon() {
      deps.tasks.run("webhook delivery", async () => {
        await deliverer.deliverDue();
      });
    },
    async disputePayment(invoiceNumber) {
      const now = deps.clock.now();
      const result = await deps.db.transaction((tx) =>
        disputePayment(tx, eventMeta(now), invoiceNumber, now),
      );
      if (result.ok) await deliverer.deliverDue();
      return result;
    },
    async closeDispute(ref, status) {
      const now = deps.clock.now();
      const result = await deps.db.transaction((tx) => closeDispute(tx, eventMeta(now), ref, status, now));
      if (result.ok) await deliverer.deliverDue();
      return result;
    },
  };
}
