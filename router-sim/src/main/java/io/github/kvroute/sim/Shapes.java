package io.github.kvroute.sim;

import static com.google.common.base.Preconditions.checkArgument;

import io.github.kvroute.api.Priority;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The request shapes of the named scenarios. Each prompt is a path of segments (see
 * {@link PromptBuilder}): a shared prefix (tenant system prompt, document) then a question unique to the
 * request. Segment keys carry a tag per kind, so kinds never collide.
 */
final class Shapes {
  private static final long TENANT = 1;
  private static final long QUESTION = 2;
  private static final long DOCUMENT = 3;
  private static final long HOT = 4;
  private static final long UNIQUE = 5;

  private Shapes() {}

  static long key(long tag, long value) {
    return PromptBuilder.mix(tag, value);
  }

  private static SimRequest.Builder request(int index, long arrivalNanos, PromptBuilder prompts,
      int output) {
    return SimRequest.newBuilder().id("r" + index).arrivalNanos(arrivalNanos)
        .model(SyntheticWorkload.MODEL).prompt(prompts.build()).outputTokens(output);
  }

  /**
   * The multi-tenant shape: each request picks one of {@code systemTokens.length} tenants
   * uniformly; its prompt is that tenant's system prompt then a unique user turn; outputs are
   * short.
   */
  static RequestShape tenants(int[] systemTokens, int userMin, int userMax, int outMin, int outMax) {
    int[] system = systemTokens.clone();
    return new RequestShape() {
      @Override
      public SimRequest next(int index, int count, long at, SplittableRandom r, PromptBuilder p) {
        int t = r.nextInt(system.length);
        p.reset().add(key(TENANT, t), system[t])
            .add(key(QUESTION, index), Distributions.uniform(r, userMin, userMax));
        return request(index, at, p, Distributions.uniform(r, outMin, outMax))
            .tenant("tenant-" + t).build();
      }

      @Override
      public String describe() {
        return String.format(Locale.ROOT,
            "%d tenants with system prompts of %s tokens, user turns %d-%d, outputs %d-%d",
            system.length, Arrays.toString(system), userMin, userMax, outMin, outMax);
      }
    };
  }

  /**
   * The tenant-burst shape: a share {@code bulkShare} of requests comes from one bulk tenant
   * ({@code bulk}, BATCH) with unique prompts of {@code bulkMin}-{@code bulkMax} tokens; the rest from
   * {@code chatTenants} chat tenants (INTERACTIVE) with a 1,000-token system prompt each and a unique
   * 32-256-token turn; outputs 32-128 tokens.
   */
  static RequestShape tenantBurst(double bulkShare, int bulkMin, int bulkMax, int chatTenants) {
    return new RequestShape() {
      @Override
      public SimRequest next(int index, int count, long at, SplittableRandom r, PromptBuilder p) {
        if (r.nextDouble() < bulkShare) {
          p.reset().add(key(QUESTION, index), Distributions.uniform(r, bulkMin, bulkMax));
          return request(index, at, p, Distributions.uniform(r, 32, 128)).tenant("bulk")
              .priority(Priority.BATCH).build();
        }
        int t = r.nextInt(chatTenants);
        p.reset().add(key(TENANT, t), 1_000)
            .add(key(QUESTION, index), Distributions.uniform(r, 32, 256));
        return request(index, at, p, Distributions.uniform(r, 32, 128)).tenant("chat-" + t)
            .priority(Priority.INTERACTIVE).build();
      }

      @Override
      public String describe() {
        return String.format(Locale.ROOT, "%.0f%% bulk (BATCH, %d-%d tokens), the rest %d chat"
            + " tenants (INTERACTIVE)", bulkShare * 100, bulkMin, bulkMax, chatTenants);
      }
    };
  }

  /**
   * The hot-prefix shape: background documents chosen uniformly, plus one hot document whose share
   * of the traffic grows linearly from {@code hotFrom} to {@code hotTo} over the run.
   */
  static RequestShape hotPrefix(int backgroundDocs, int docTokens, int hotTokens, double hotFrom,
      double hotTo, int questionMin, int questionMax, int outMin, int outMax) {
    checkArgument(hotFrom >= 0 && hotTo <= 1, "hot share: %s..%s (expected: in [0, 1])", hotFrom, hotTo);
    return new RequestShape() {
      @Override
      public SimRequest next(int index, int count, long at, SplittableRandom r, PromptBuilder p) {
        double share = hotFrom + (hotTo - hotFrom) * index / Math.max(1, count - 1);
        p.reset();
        String tenant;
        if (r.nextDouble() < share) {
          p.add(key(HOT, 0), hotTokens);
          tenant = "hot";
        } else {
          int d = r.nextInt(backgroundDocs);
          p.add(key(DOCUMENT, d), docTokens);
          tenant = "doc-" + d;
        }
        p.add(key(QUESTION, index), Distributions.uniform(r, questionMin, questionMax));
        return request(index, at, p, Distributions.uniform(r, outMin, outMax)).tenant(tenant).build();
      }

      @Override
      public String describe() {
        return String.format(Locale.ROOT,
            "one %d-token prefix growing from %.0f%% to %.0f%% of traffic among %d background"
                + " %d-token prefixes", hotTokens, hotFrom * 100, hotTo * 100, backgroundDocs,
            docTokens);
      }
    };
  }

  /**
   * The RAG shape: Zipf over {@code docs} long documents (lengths fixed per document, drawn
   * once from {@code [docMin, docMax]}), a short question, and an output {@code 1/19..1/47} of the
   * prompt (prefill-heavy, input:output 19-47:1).
   */
  static RequestShape rag(int docs, double zipf, int docMin, int docMax, int questionMin,
      int questionMax) {
    int[] lengths = new int[docs];
    SplittableRandom fixed = new SplittableRandom(0xD0C5L);
    for (int d = 0; d < docs; d++) {
      lengths[d] = Distributions.uniform(fixed, docMin, docMax);
    }
    Distributions.Zipf popularity = new Distributions.Zipf(docs, zipf);
    return new RequestShape() {
      @Override
      public SimRequest next(int index, int count, long at, SplittableRandom r, PromptBuilder p) {
        int d = popularity.sample(r);
        p.reset().add(key(DOCUMENT, d), lengths[d])
            .add(key(QUESTION, index), Distributions.uniform(r, questionMin, questionMax));
        double ratio = 19 + 28 * r.nextDouble();
        int output = (int) Math.max(1, Math.round(p.tokens() / ratio));
        return request(index, at, p, output).tenant("doc-" + d).build();
      }

      @Override
      public String describe() {
        return String.format(Locale.ROOT,
            "Zipf(%.1f) over %d documents of %d-%d tokens, questions %d-%d, input:output 19-47:1",
            zipf, docs, docMin, docMax, questionMin, questionMax);
      }
    };
  }

  /** Unique prompts with heavy-tailed (log-normal, clipped) prompt and output lengths. */
  static RequestShape mixedSizes(double promptMedian, double promptSigma, int promptMin,
      int promptMax, double outMedian, double outSigma, int outMin, int outMax) {
    return new RequestShape() {
      @Override
      public SimRequest next(int index, int count, long at, SplittableRandom r, PromptBuilder p) {
        p.reset().add(key(UNIQUE, index),
            Distributions.logNormal(r, promptMedian, promptSigma, promptMin, promptMax));
        return request(index, at, p,
            Distributions.logNormal(r, outMedian, outSigma, outMin, outMax)).build();
      }

      @Override
      public String describe() {
        return String.format(Locale.ROOT,
            "unique prompts, log-normal lengths %d-%d tokens (median %.0f), outputs %d-%d"
                + " (median %.0f)", promptMin, promptMax, promptMedian, outMin, outMax, outMedian);
      }
    };
  }

  /**
   * Requests of {@code base} given priorities and TTFT budgets: {@code interactiveShare} INTERACTIVE
   * with {@code interactiveBudget}, {@code batchShare} BATCH without a budget, the rest STANDARD with
   * {@code standardBudget}.
   */
  static RequestShape withDeadlines(RequestShape base, double interactiveShare, Duration interactive,
      double batchShare, Duration standard) {
    return new RequestShape() {
      @Override
      public SimRequest next(int index, int count, long at, SplittableRandom r, PromptBuilder p) {
        SimRequest b = base.next(index, count, at, r, p);
        double u = r.nextDouble();
        SimRequest.Builder out = SimRequest.newBuilder().id(b.id()).arrivalNanos(b.arrivalNanos())
            .model(b.model()).prompt(b.prompt()).outputTokens(b.outputTokens());
        b.tenant().ifPresent(out::tenant);
        if (u < interactiveShare) {
          out.priority(Priority.INTERACTIVE).ttftBudget(interactive);
        } else if (u < interactiveShare + batchShare) {
          out.priority(Priority.BATCH);
        } else {
          out.priority(Priority.STANDARD).ttftBudget(standard);
        }
        return out.build();
      }

      @Override
      public String describe() {
        return base.describe() + String.format(Locale.ROOT,
            "; %.0f%% interactive (TTFT budget %d ms), %.0f%% batch, rest standard (%d ms)",
            interactiveShare * 100, interactive.toMillis(), batchShare * 100, standard.toMillis());
      }
    };
  }
}
