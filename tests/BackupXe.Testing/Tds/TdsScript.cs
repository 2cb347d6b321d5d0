namespace BackupXe.Testing.Tds;

/// <summary>
/// The double's answers, matched on the text of each request. Rules are tried newest first, so a scenario can
/// start from a baseline and override one answer. A request no rule matches gets error 50000 naming it, which
/// makes a missing rule obvious in the failing test.
/// </summary>
public sealed class TdsScript
{
    private readonly List<(Func<TdsRequest, bool> Matches, Func<TdsRequest, TdsResponse> Answer)> rules = [];

    /// <summary>Answer requests whose text contains <paramref name="fragment"/> (ordinal).</summary>
    public TdsScript On(string fragment, TdsResponse response) => On(fragment, _ => response);

    public TdsScript On(string fragment, Func<TdsRequest, TdsResponse> answer) =>
        On(r => r.Text.Contains(fragment, StringComparison.Ordinal), answer);

    public TdsScript On(Func<TdsRequest, bool> matches, Func<TdsRequest, TdsResponse> answer)
    {
        lock (rules)
        {
            rules.Add((matches, answer));
        }

        return this;
    }

    internal TdsResponse Answer(TdsRequest request)
    {
        lock (rules)
        {
            for (var i = rules.Count - 1; i >= 0; i--)
            {
                if (rules[i].Matches(request))
                {
                    return rules[i].Answer(request);
                }
            }
        }

        var head = request.Text.Length > 120 ? request.Text[..120] + "..." : request.Text;
        return new TdsResponse().Error(50000, 16, $"TDS double: no scripted response for: {head}");
    }
}
