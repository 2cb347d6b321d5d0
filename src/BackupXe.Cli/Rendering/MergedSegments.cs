using System.Text;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace BackupXe.Cli.Rendering;

/// <summary>
/// A renderable whose lines reach the panel or table around it as one segment per run of one style, not one per
/// word: Spectre measures a line again for every segment it adds to it, so a wrapped paragraph cost time in the
/// square of its words at every layer around it (docs/performance.md, "The console report"). The text is the same.
/// </summary>
internal sealed class MergedSegments(IRenderable inner) : IRenderable
{
    public Measurement Measure(RenderOptions options, int maxWidth) => inner.Measure(options, maxWidth);

    public IEnumerable<Segment> Render(RenderOptions options, int maxWidth)
    {
        var merged = new List<Segment>();
        var run = new StringBuilder();
        Style? style = null;
        foreach (var segment in inner.Render(options, maxWidth))
        {
            // A tab is passed on by itself: merged with the words beside it, it moved where the panel wrapped (the tests).
            var alone = segment.IsLineBreak || segment.IsControlCode || segment.Text.Contains('\t');
            if (alone || (style is not null && !segment.Style.Equals(style)))
            {
                Flush();
            }

            if (alone)
            {
                merged.Add(segment);
                continue;
            }

            style = segment.Style;
            run.Append(segment.Text);
        }

        Flush();
        return merged;

        void Flush()
        {
            if (run.Length > 0)
            {
                merged.Add(new Segment(run.ToString(), style ?? Style.Plain));
                run.Clear();
            }

            style = null;
        }
    }
}
